#!/usr/bin/env bash
# Creates (or updates) the Secrets the Kubernetes manifests read, from the files in ./secrets/
# that `scripts/dev secrets` writes for docker compose (service_token, postgres_password,
# postgres_{identity,tokens,content_state}_password, admin_password_hash, signing-keys/*.pem).
# No secret value is ever in the repository.
#   deploy/kubernetes/create-secrets.sh --development          # for overlays/development
#   IDENTITY_DATABASE_URL=postgres://latchkey_identity:PW@db.example.com:5432/latchkey?sslmode=verify-full \
#   TOKENS_DATABASE_URL=... CONTENT_STATE_DATABASE_URL=... \
#   IDENTITY_REDIS_URL=redis://identity:PW@redis.example.com:6379/0 TOKENS_REDIS_URL=... GATEWAY_REDIS_URL=... \
#     deploy/kubernetes/create-secrets.sh                      # for the base (external stores)
# Each backend connects to Postgres as its own role, and identity, tokens and the gateway to
# Redis as their own ACL user (deploy/kubernetes/redis-users.acl). With --development the
# Redis users' passwords are made once in DIR/redis_{identity,tokens,gateway}_password, and
# the Secret latchkey-redis also holds the development Redis' ACL file (users.acl).
# Options: --namespace NS (latchkey), --secrets DIR (./secrets), --print (write the Secret
# manifests to standard output instead of applying them, e.g. to seal them).
# Run it again after adding a key to DIR/signing-keys/ (or removing an old one): the Secret
# latchkey-signing-keys is replaced, and every tokens pod sees the change after the kubelet's
# next sync (docs/deploy.md, "Signing keys").
set -euo pipefail

namespace=latchkey
secrets=./secrets
development=false
print=false
while [ $# -gt 0 ]; do
  case $1 in
    --namespace) namespace=${2:?--namespace NS}; shift 2 ;;
    --secrets) secrets=${2:?--secrets DIR}; shift 2 ;;
    --development) development=true; shift ;;
    --print) print=true; shift ;;
    *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done

fail() {
  echo "create-secrets: $*" >&2
  exit 1
}

for file in service_token admin_password_hash; do
  [ -s "$secrets/$file" ] || fail "$secrets/$file is missing (scripts/dev secrets writes it)"
done
ls "$secrets"/signing-keys/*.pem >/dev/null 2>&1 || fail "no $secrets/signing-keys/*.pem (scripts/dev secrets, or tokens keygen)"

# The values without their trailing newline: an environment variable from a Secret keeps every
# byte, and a bcrypt hash with a newline is not one.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"
value() {
  printf '%s' "$(<"$1")" >"$work/$2"
  echo "$work/$2"
}

# url_safe FILE: the password in FILE, which goes into a URL as it is.
url_safe() {
  [ -s "$1" ] || fail "$1 is missing (scripts/dev secrets writes it)"
  local password
  password=$(<"$1")
  # scripts/dev secrets makes URL-safe passwords (secrets.token_urlsafe).
  [[ $password =~ ^[A-Za-z0-9_-]+$ ]] || fail "$1: use letters, digits, - and _ only (it goes into a URL)"
  printf '%s' "$password"
}

database=() redis=()
if $development; then
  [ -s "$secrets/postgres_password" ] || fail "$secrets/postgres_password is missing (scripts/dev secrets writes it)"
  database+=(--from-file=password="$(value "$secrets/postgres_password" postgres-password)")
  for service in identity tokens content-state; do
    file=$secrets/postgres_${service//-/_}_password
    password=$(url_safe "$file")
    printf 'postgres://latchkey_%s:%s@postgres:5432/latchkey' "${service//-/_}" "$password" >"$work/$service-database-url"
    database+=(--from-file="$service-url=$work/$service-database-url" --from-file="$service-password=$(value "$file" "$service-postgres-password")")
  done
  # Redis reads no comments in an ACL file: the user lines only.
  grep "^user " "$(dirname "$0")/redis-users.acl" >"$work/users.acl"
  for service in identity tokens gateway; do
    file=$secrets/redis_${service}_password
    if [ ! -s "$file" ]; then
      (umask 077 && openssl rand -hex 32 >"$file")
    fi
    password=$(url_safe "$file")
    printf 'redis://%s:%s@redis:6379/0' "$service" "$password" >"$work/$service-redis-url"
    redis+=(--from-file="$service-url=$work/$service-redis-url")
    hash=$(printf '%s' "$password" | sha256sum | cut -c1-64)
    sed -i "s/#${service^^}_PASSWORD_SHA256/#$hash/" "$work/users.acl"
  done
  redis+=(--from-file=users.acl="$work/users.acl")
else
  for service in identity tokens content-state; do
    variable=${service//-/_}
    variable=${variable^^}_DATABASE_URL
    [ -n "${!variable:-}" ] || fail "set $variable (its own Postgres role's libpq URI) or use --development"
    printf '%s' "${!variable}" >"$work/$service-database-url"
    database+=(--from-file="$service-url=$work/$service-database-url")
  done
  for service in identity tokens gateway; do
    variable=${service^^}_REDIS_URL
    [ -n "${!variable:-}" ] || fail "set $variable (its own Redis ACL user, redis-users.acl) or use --development"
    printf '%s' "${!variable}" >"$work/$service-redis-url"
    redis+=(--from-file="$service-url=$work/$service-redis-url")
  done
fi

secret() {
  local name=$1
  shift
  kubectl create secret generic "$name" --namespace "$namespace" "$@" --dry-run=client -o yaml >"$work/$name.yaml"
  if $print; then
    printf -- '---\n'
    cat "$work/$name.yaml"
  else
    kubectl apply -f "$work/$name.yaml"
  fi
}

secret latchkey-service-token --from-file=service-token="$(value "$secrets/service_token" service-token)"
secret latchkey-admin --from-file=password-hash="$(value "$secrets/admin_password_hash" admin-hash)"
secret latchkey-database "${database[@]}"
secret latchkey-redis "${redis[@]}"
# One key per PEM file, named as the file (tokens publishes every *.pem).
secret latchkey-signing-keys --from-file="$secrets/signing-keys/"
