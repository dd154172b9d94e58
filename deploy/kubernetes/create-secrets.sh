#!/usr/bin/env bash
# Creates (or updates) the Secrets the Kubernetes manifests read, from the files in ./secrets/
# that `scripts/dev secrets` writes for docker compose (service_token, postgres_password,
# postgres_{identity,tokens,content_state,gateway}_password, admin_password_hash, signing-keys/*.pem).
# No secret value is ever in the repository.
#   deploy/kubernetes/create-secrets.sh --development          # for overlays/development
#   IDENTITY_DATABASE_URL="postgres://latchkey_identity:PW@db.example.com:5432/latchkey?sslmode=verify-full&sslrootcert=/etc/latchkey/postgres/ca.crt" \
#   TOKENS_DATABASE_URL=... CONTENT_STATE_DATABASE_URL=... [GATEWAY_DATABASE_URL=...] \
#   IDENTITY_REDIS_URL=rediss://identity:PW@redis.example.com:6379/0 TOKENS_REDIS_URL=... GATEWAY_REDIS_URL=... \
#   POSTGRES_CA_FILE=db-ca.pem REDIS_CA_FILE=redis-ca.pem \
#     deploy/kubernetes/create-secrets.sh                      # for the base (external stores)
# Each backend connects to Postgres as its own role (the gateway, when GATEWAY_DATABASE_URL is
# given, as one that may read, insert and update schema content's tables: its own content calls), and identity, tokens and the gateway to
# Redis as their own ACL user (deploy/kubernetes/redis-users.acl). With --development the
# Redis users' passwords are made once in DIR/redis_{identity,tokens,gateway}_password, and
# the Secret latchkey-redis also holds the development Redis' ACL file (users.acl).
# TLS (DESIGN.md §9.5; the manifests turn it on everywhere): the internal RPC's authority and one
# certificate a service (DNS name = its Service) are made once in DIR/rpc-tls/ unless there, and
# Secret latchkey-rpc also holds the named callers (RPC_CALLERS: DIR/rpc_callers when it exists,
# else the gateway's line, `gateway:<sha256 of service_token>:*`). The base's Postgres and Redis
# URLs must ask for TLS (sslmode=verify-full&sslrootcert=/etc/latchkey/postgres/ca.crt,
# rediss://); POSTGRES_CA_FILE and REDIS_CA_FILE name their servers' authorities. With
# --development a throwaway authority in DIR/dev-tls/ signs the in-cluster Postgres' and Redis'
# certificates, and the URLs made here ask for TLS.
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
    *) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
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

# certificate DIR NAME DNS...: DIR/NAME.crt and DIR/NAME.key (0600) for the names, signed by
# DIR/ca.crt, which is made first when missing; an existing pair is kept.
certificate() {
  local dir=$1 name=$2
  shift 2
  mkdir -p "$dir" && chmod 700 "$dir"
  if [ ! -s "$dir/ca.crt" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=latchkey $(basename "$dir") authority" \
      -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
    chmod 600 "$dir/ca.key"
  fi
  [ -s "$dir/$name.crt" ] && [ -s "$dir/$name.key" ] && return
  local names=() host
  for host in "$@"; do names+=("DNS:$host"); done
  (IFS=,; printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "${names[*]}") >"$work/$name.ext"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$dir/$name.key" -out "$work/$name.csr" 2>/dev/null
  chmod 600 "$dir/$name.key"
  openssl x509 -req -in "$work/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 825 \
    -extfile "$work/$name.ext" -out "$dir/$name.crt" 2>/dev/null
}

# In-cluster names of a Service: NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local.
service_names() {
  echo "$1" "$1.$namespace" "$1.$namespace.svc" "$1.$namespace.svc.cluster.local"
}

# The internal RPC: one authority, a certificate for each service, the named callers.
rpc=(--from-file=ca.crt="$secrets/rpc-tls/ca.crt")
for service in gateway identity tokens content-state; do
  # shellcheck disable=SC2046
  certificate "$secrets/rpc-tls" "$service" $(service_names "$service")
  rpc+=(--from-file="$service.crt=$secrets/rpc-tls/$service.crt" --from-file="$service.key=$secrets/rpc-tls/$service.key")
done
if [ -s "$secrets/rpc_callers" ]; then
  rpc+=(--from-file=callers="$secrets/rpc_callers")
else
  printf 'gateway:%s:*\n' "$(printf '%s' "$(<"$secrets/service_token")" | sha256sum | cut -c1-64)" >"$work/callers"
  rpc+=(--from-file=callers="$work/callers")
fi

database=() redis=()
if $development; then
  [ -s "$secrets/postgres_password" ] || fail "$secrets/postgres_password is missing (scripts/dev secrets writes it)"
  database+=(--from-file=password="$(value "$secrets/postgres_password" postgres-password)")
  # The gateway's role reads, inserts and updates schema content's tables (CONTENT_DATABASE_URL).
  for service in identity tokens content-state gateway; do
    file=$secrets/postgres_${service//-/_}_password
    password=$(url_safe "$file")
    printf 'postgres://latchkey_%s:%s@postgres:5432/latchkey?sslmode=verify-full&sslrootcert=/etc/latchkey/postgres/ca.crt' \
      "${service//-/_}" "$password" >"$work/$service-database-url"
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
    printf 'rediss://%s:%s@redis:6379/0' "$service" "$password" >"$work/$service-redis-url"
    redis+=(--from-file="$service-url=$work/$service-redis-url")
    hash=$(printf '%s' "$password" | sha256sum | cut -c1-64)
    sed -i "s/#${service^^}_PASSWORD_SHA256/#$hash/" "$work/users.acl"
  done
  redis+=(--from-file=users.acl="$work/users.acl")
  # The in-cluster Postgres and Redis speak TLS with certificates of a throwaway authority.
  for store in postgres redis; do
    # shellcheck disable=SC2046
    certificate "$secrets/dev-tls" "$store" $(service_names "$store")
  done
  database+=(--from-file=ca.crt="$secrets/dev-tls/ca.crt" --from-file=server.crt="$secrets/dev-tls/postgres.crt"
    --from-file=server.key="$secrets/dev-tls/postgres.key")
  redis+=(--from-file=ca.crt="$secrets/dev-tls/ca.crt" --from-file=server.crt="$secrets/dev-tls/redis.crt"
    --from-file=server.key="$secrets/dev-tls/redis.key")
else
  for service in identity tokens content-state; do
    variable=${service//-/_}
    variable=${variable^^}_DATABASE_URL
    [ -n "${!variable:-}" ] || fail "set $variable (its own Postgres role's libpq URI) or use --development"
    [[ ${!variable} == *sslmode=verify-full* ]] || fail "$variable: add sslmode=verify-full&sslrootcert=/etc/latchkey/postgres/ca.crt"
    printf '%s' "${!variable}" >"$work/$service-database-url"
    database+=(--from-file="$service-url=$work/$service-database-url")
  done
  # Optional: the gateway's role (latchkey_gateway: SELECT, INSERT, UPDATE on schema content's
  # tables); without it the gateway calls content-state for content.
  if [ -n "${GATEWAY_DATABASE_URL:-}" ]; then
    [[ $GATEWAY_DATABASE_URL == *sslmode=verify-full* ]] ||
      fail "GATEWAY_DATABASE_URL: add sslmode=verify-full&sslrootcert=/etc/latchkey/postgres/ca.crt"
    printf '%s' "$GATEWAY_DATABASE_URL" >"$work/gateway-database-url"
    database+=(--from-file="gateway-url=$work/gateway-database-url")
  fi
  for service in identity tokens gateway; do
    variable=${service^^}_REDIS_URL
    [ -n "${!variable:-}" ] || fail "set $variable (its own Redis ACL user, redis-users.acl) or use --development"
    [[ ${!variable} == rediss://* ]] || fail "$variable: use rediss:// (the manifests speak TLS to Redis)"
    printf '%s' "${!variable}" >"$work/$service-redis-url"
    redis+=(--from-file="$service-url=$work/$service-redis-url")
  done
  [ -s "${POSTGRES_CA_FILE:-}" ] || fail "set POSTGRES_CA_FILE: the authority of your Postgres server's certificate"
  [ -s "${REDIS_CA_FILE:-}" ] || fail "set REDIS_CA_FILE: the authority of your Redis server's certificate"
  database+=(--from-file=ca.crt="$POSTGRES_CA_FILE")
  redis+=(--from-file=ca.crt="$REDIS_CA_FILE")
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
secret latchkey-rpc "${rpc[@]}"
# One key per PEM file, named as the file (tokens publishes every *.pem).
secret latchkey-signing-keys --from-file="$secrets/signing-keys/"
