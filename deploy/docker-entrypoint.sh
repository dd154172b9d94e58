#!/usr/bin/env bash
# The image's entrypoint: for each variable that holds a secret, NAME_FILE (a mounted
# compose or Kubernetes secret) becomes NAME, so the services read secrets from the
# environment as usual and no secret has to sit in docker-compose.yml. Then runs the
# command: `identity`, `tokens`, `content-state`, `gateway`, `mock-idp` or `tokens keygen`.
set -euo pipefail

for name in SERVICE_TOKEN ADMIN_PASSWORD_HASH PGPASSWORD REDIS_URL DATABASE_URL APPLE_TOKEN_ENCRYPTION_KEY; do
  file_variable=${name}_FILE
  file=${!file_variable:-}
  [ -n "$file" ] || continue
  if [ -n "${!name:-}" ]; then
    echo "latchkey-entrypoint: set $name or $file_variable, not both" >&2
    exit 2
  fi
  if [ ! -r "$file" ]; then
    echo "latchkey-entrypoint: $file_variable: cannot read $file" >&2
    exit 2
  fi
  value=$(<"$file")
  export "$name=$value"
  unset "$file_variable"
done

exec "$@"
