# shellcheck shell=bash
# scripts/dev: the development secrets in .dev/, and ./secrets/ for docker compose (`scripts/dev secrets`).
# Sourced by scripts/dev, which sets the variables these use ($dev, the ports, ...).

# The development secrets, made once and kept in .dev/ (mode 0600).
prepare_secrets() {
  mkdir -p "$dev/run" "$dev/logs" "$dev/keys"
  chmod 755 "$dev"
  chmod 700 "$dev/keys"
  [ -s "$dev/service_token" ] || write_secret "$dev/service_token" "$(random_secret 32)"
  admin_password_is_new=false
  if [ ! -s "$dev/admin_password" ]; then
    write_secret "$dev/admin_password" "$(random_secret 12)"
    admin_password_is_new=true
  fi
  service_token=$(cat "$dev/service_token")
  admin_password=$(cat "$dev/admin_password")
}

# Creates what docker-compose.yml mounts as secrets (in ./secrets, or LATCHKEY_SECRETS_DIR:
# scripts/compose-check makes a throwaway set), leaving existing files alone. The folder
# is 0700 so that other users of this machine cannot read it; the files in it are readable
# by any user because the containers run as their own non-root user and compose mounts the
# files as they are.
cmd_secrets() {
  local dir=${LATCHKEY_SECRETS_DIR:-$root/secrets}
  mkdir -p "$dir/signing-keys"
  chmod 700 "$dir"
  chmod 755 "$dir/signing-keys"
  local name
  # postgres_password is the admin role's (POSTGRES_USER), which no service uses; each backend
  # has its own role and password (deploy/postgres-init); Redis requires redis_password.
  for name in service_token postgres_password postgres_identity_password postgres_tokens_password \
    postgres_content_state_password redis_password; do
    if [ ! -s "$dir/$name" ]; then
      (umask 022 && random_secret 32 >"$dir/$name")
      echo "secrets: wrote $dir/$name"
    fi
  done
  # What tokens and the gateway read as REDIS_URL (the password is URL-safe base64).
  if [ ! -s "$dir/redis_url" ]; then
    (umask 022 && printf 'redis://:%s@redis:6379/0\n' "$(cat "$dir/redis_password")" >"$dir/redis_url")
    echo "secrets: wrote $dir/redis_url"
  fi
  if [ ! -s "$dir/admin_password_hash" ]; then
    local password
    password=$(random_secret 12)
    (umask 022 && bcrypt_hash "$password" >"$dir/admin_password_hash")
    echo "secrets: wrote $dir/admin_password_hash; the admin password (shown once) is: $password"
  fi
  if ! ls "$dir/signing-keys"/*.pem >/dev/null 2>&1; then
    local key
    key=$dir/signing-keys/$(date -u +%Y%m%dT%H%M%S)-rs256.pem
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$key" 2>/dev/null
    chmod 644 "$key"
    echo "secrets: wrote $key"
  fi
  echo "secrets: $dir is ready for docker compose"
}

# A bcrypt hash ($2b$, cost 12) of $1, the form ADMIN_PASSWORD_HASH takes.
bcrypt_hash() {
  if python3 -W ignore -c 'import crypt' 2>/dev/null; then
    python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=4096)))' "$1"
  else
    command -v htpasswd >/dev/null || install_system_packages apache2-utils
    htpasswd -nbBC 12 "" "$1" | cut -d: -f2 | sed 's/^\$2y\$/$2b$/'
  fi
}
