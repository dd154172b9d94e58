#!/usr/bin/env bash
# The part of the official postgres image's entrypoint that docker-compose.yml relies on, for
# the local stand-in image (postgres.Containerfile): on an empty PGDATA, initdb with
# POSTGRES_USER, POSTGRES_PASSWORD(_FILE) and POSTGRES_DB, password (scram-sha-256) logins
# over TCP, then every /docker-entrypoint-initdb.d/*.sh and *.sql against a server that listens
# on its socket only; then runs the command (`postgres`) as the postgres user.
set -euo pipefail

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

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
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
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

if [ "${1:-}" = postgres ]; then
  shift
  exec postgres -D "$PGDATA" "$@"
fi
exec "$@"
