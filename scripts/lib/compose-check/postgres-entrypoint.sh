#!/usr/bin/env bash
# The part of the official postgres image's entrypoint that docker-compose.yml (and
# docker-compose.tls.yml) rely on, for the local stand-in image (postgres.Containerfile): for the
# command `postgres ARGS` (or ARGS alone, starting with -), on an empty PGDATA, initdb with
# POSTGRES_USER, POSTGRES_PASSWORD(_FILE) and POSTGRES_DB, password (scram-sha-256) logins over
# TCP, then every /docker-entrypoint-initdb.d/*.sh and *.sql against a server started with ARGS
# that listens on its socket only; then runs postgres ARGS as the postgres user. Any other
# command runs as it is (as root: docker-compose.tls.yml's prepares the key files first).
set -euo pipefail

case ${1:-} in
  -*) set -- postgres "$@" ;;
esac
if [ "${1:-}" != postgres ]; then
  exec "$@"
fi

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
shift

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  user=${POSTGRES_USER:-postgres}
  database=${POSTGRES_DB:-$user}
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    password=$(<"$POSTGRES_PASSWORD_FILE")
  else
    password=${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE}
  fi
  initdb -D "$PGDATA" -U "$user" --pwfile=<(printf '%s\n' "$password") -E UTF8 --no-locale \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "$(printf '%q ' "$@") -c listen_addresses=''" -w start >/dev/null
  if [ "$database" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --no-psqlrc -U "$user" -d postgres -q -c "CREATE DATABASE \"$database\""
  fi
  export POSTGRES_USER=$user POSTGRES_DB=$database
  for file in /docker-entrypoint-initdb.d/*; do
    case $file in
      *.sh)
        echo "postgres-entrypoint: running $file"
        if [ -x "$file" ]; then "$file"; else . "$file"; fi
        ;;
      *.sql)
        echo "postgres-entrypoint: running $file"
        psql -v ON_ERROR_STOP=1 --no-psqlrc -U "$user" -d "$database" -f "$file"
        ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres-entrypoint: database $database ready for $user"
fi

exec postgres -D "$PGDATA" "$@"
