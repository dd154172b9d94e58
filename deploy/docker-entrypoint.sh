#!/usr/bin/env bash
# The image's entrypoint: for each variable that holds a secret, NAME_FILE (a mounted
# compose or Kubernetes secret) becomes NAME, so the services read secrets from the
# environment as usual and no secret has to sit in docker-compose.yml. Then runs the
# command: `identity`, `tokens`, `content-state`, `gateway`, `mock-idp` or `tokens keygen`.
# For tokens, SIGNING_KEYS_SOURCE_DIR (a mounted secret) is first copied into SIGNING_KEYS_DIR.
set -euo pipefail

# Signing keys: production tokens refuses a key file group or others may read (DESIGN.md §9.6),
# and a mounted secret cannot give its files to the service's user (compose bind-mounts host
# files as they are; a Kubernetes Secret volume with fsGroup makes them 0440, owned by root).
# So the image copies every *.pem of SIGNING_KEYS_SOURCE_DIR into SIGNING_KEYS_DIR (made 0700,
# on a tmpfs or memory emptyDir) as files of its own, mode 0400. Keys added to the source are
# seen at the next start (docs/deploy.md, "Signing keys and rotation").
if [ -n "${SIGNING_KEYS_SOURCE_DIR:-}" ]; then
  if [ -z "${SIGNING_KEYS_DIR:-}" ]; then
    echo "latchkey-entrypoint: SIGNING_KEYS_SOURCE_DIR needs SIGNING_KEYS_DIR (where the keys are copied)" >&2
    exit 2
  fi
  mkdir -p -m 700 "$SIGNING_KEYS_DIR"
  rm -f "$SIGNING_KEYS_DIR"/*.pem  # a container restart in the same pod: keys removed since go too
  for key in "$SIGNING_KEYS_SOURCE_DIR"/*.pem; do
    [ -e "$key" ] || continue
    if ! install -m 0400 "$key" "$SIGNING_KEYS_DIR/$(basename "$key")"; then
      echo "latchkey-entrypoint: SIGNING_KEYS_SOURCE_DIR: cannot copy $key" >&2
      exit 2
    fi
  done
  unset SIGNING_KEYS_SOURCE_DIR
fi

for name in SERVICE_TOKEN ADMIN_PASSWORD_HASH PGPASSWORD REDIS_URL DATABASE_URL CONTENT_DATABASE_URL APPLE_TOKEN_ENCRYPTION_KEY; do
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
