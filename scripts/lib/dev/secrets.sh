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
  # service_token is what the gateway presents to the backends, read_filter_token what
  # Examples/read-filter would (both named in rpc_callers, below).
  for name in service_token read_filter_token postgres_password postgres_identity_password postgres_tokens_password \
    postgres_content_state_password postgres_gateway_password redis_password; do
    if [ ! -s "$dir/$name" ]; then
      (umask 022 && random_secret 32 >"$dir/$name")
      echo "secrets: wrote $dir/$name"
    fi
  done
  # What identity, tokens and the gateway read as REDIS_URL (the password is URL-safe base64);
  # redis_tls_url is the same over TLS, for docker-compose.tls.yml.
  if [ ! -s "$dir/redis_url" ]; then
    (umask 022 && printf 'redis://:%s@redis:6379/0\n' "$(cat "$dir/redis_password")" >"$dir/redis_url")
    echo "secrets: wrote $dir/redis_url"
  fi
  if [ ! -s "$dir/redis_tls_url" ]; then
    (umask 022 && printf 'rediss://:%s@redis:6379/0\n' "$(cat "$dir/redis_password")" >"$dir/redis_tls_url")
    echo "secrets: wrote $dir/redis_tls_url"
  fi
  write_rpc_callers "$dir"
  write_tls_certificates "$dir/tls"
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

# rpc_callers: the backends' RPC_CALLERS (docs/protocol.md, "Named callers"), the SHA-256 of
# each caller's token, no token: the gateway may call every method with service_token,
# Examples/read-filter only tokens.verify and content.state.query with read_filter_token.
write_rpc_callers() {
  local dir=$1
  [ -s "$dir/rpc_callers" ] && return 0
  local gateway_hash read_filter_hash
  gateway_hash=$(printf %s "$(cat "$dir/service_token")" | sha256sum | cut -d' ' -f1)
  read_filter_hash=$(printf %s "$(cat "$dir/read_filter_token")" | sha256sum | cut -d' ' -f1)
  (umask 022 && printf '%s\n' \
    "# RPC_CALLERS of identity, tokens and content-state (docs/protocol.md, \"Named callers\"):" \
    "# name:SHA-256 of the caller's token:the methods it may call. Made by scripts/dev secrets." \
    "gateway:$gateway_hash:*" \
    "read-filter:$read_filter_hash:tokens.verify,content.state.query" >"$dir/rpc_callers")
  echo "secrets: wrote $dir/rpc_callers (gateway: every method; read-filter: tokens.verify, content.state.query)"
}

# tls/: what docker-compose.tls.yml mounts. A throwaway authority (ca.pem; its key is deleted
# once it has signed) and, for each of postgres, redis, identity, tokens, content-state and
# gateway, NAME.pem (a certificate for the DNS name NAME, localhost and 127.0.0.1, for servers
# and clients alike) with NAME-key.pem. Made again, all of them, when any is missing; replace
# them with your own authority's under the same names.
tls_names=(postgres redis identity tokens content-state gateway)
write_tls_certificates() {
  local dir=$1 name complete=true
  for name in ca "${tls_names[@]}"; do
    [ -s "$dir/$name.pem" ] || complete=false
  done
  $complete && return 0
  command -v openssl >/dev/null || install_system_packages openssl
  rm -rf "$dir"
  mkdir -p "$dir"
  chmod 755 "$dir"
  local work
  work=$(mktemp -d)
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/ca-key.pem" 2>/dev/null
  openssl req -x509 -new -key "$work/ca-key.pem" -subj "/CN=Latchkey throwaway CA $(date -u +%Y%m%dT%H%M%S)" \
    -days 825 -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    -out "$dir/ca.pem" 2>/dev/null
  for name in "${tls_names[@]}"; do
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/$name-key.pem" 2>/dev/null
    printf '%s\n' "subjectAltName=DNS:$name,DNS:localhost,IP:127.0.0.1" basicConstraints=CA:FALSE \
      keyUsage=critical,digitalSignature,keyEncipherment extendedKeyUsage=serverAuth,clientAuth >"$work/extensions"
    openssl req -new -key "$dir/$name-key.pem" -subj "/CN=$name" 2>/dev/null |
      openssl x509 -req -CA "$dir/ca.pem" -CAkey "$work/ca-key.pem" -set_serial "0x$(openssl rand -hex 16)" \
        -days 825 -extfile "$work/extensions" -out "$dir/$name.pem" 2>/dev/null
    # Readable by the containers' users, as the other files here (the folder above is 0700).
    chmod 644 "$dir/$name.pem" "$dir/$name-key.pem"
  done
  chmod 644 "$dir/ca.pem"
  rm -rf "$work"
  echo "secrets: wrote $dir: a throwaway authority (ca.pem, its key deleted) and a certificate for each of ${tls_names[*]}"
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
