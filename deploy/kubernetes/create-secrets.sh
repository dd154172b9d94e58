#!/usr/bin/env bash
# Creates (or updates) the Secrets the Kubernetes manifests read, from the files in ./secrets/
# that `scripts/dev secrets` writes for docker compose (service_token, postgres_password,
# admin_password_hash, signing-keys/*.pem). No secret value is ever in the repository.
#   deploy/kubernetes/create-secrets.sh --development          # for overlays/development
#   DATABASE_URL=postgres://latchkey@db.example.com:5432/latchkey?sslmode=verify-full \
#   REDIS_URL=rediss://:PASSWORD@redis.example.com:6380/0 \
#     deploy/kubernetes/create-secrets.sh                      # for the base (external stores)
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
    *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
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

if $development; then
  [ -s "$secrets/postgres_password" ] || fail "$secrets/postgres_password is missing (scripts/dev secrets writes it)"
  password=$(<"$secrets/postgres_password")
  # scripts/dev secrets makes URL-safe passwords (secrets.token_urlsafe).
  [[ $password =~ ^[A-Za-z0-9_-]+$ ]] || fail "$secrets/postgres_password: use letters, digits, - and _ only (it goes into a URL)"
  database_url="postgres://latchkey:$password@postgres:5432/latchkey"
  redis_url="redis://redis:6379/0"
else
  database_url=${DATABASE_URL:?set DATABASE_URL (your Postgres, a libpq URI) or use --development}
  redis_url=${REDIS_URL:?set REDIS_URL (your Redis) or use --development}
fi
printf '%s' "$database_url" >"$work/database-url"
printf '%s' "$redis_url" >"$work/redis-url"

database_password=()
if [ -s "$secrets/postgres_password" ]; then
  database_password=(--from-file=password="$(value "$secrets/postgres_password" postgres-password)")
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
secret latchkey-database --from-file=url="$work/database-url" "${database_password[@]}"
secret latchkey-redis --from-file=url="$work/redis-url"
# One key per PEM file, named as the file (tokens publishes every *.pem).
secret latchkey-signing-keys --from-file="$secrets/signing-keys/"
