# shellcheck shell=bash
# scripts/dev: the stack's Postgres (run as the postgres user when root) and Redis.
# Sourced by scripts/dev, which sets the variables these use ($dev, the ports, ...).

# Where Postgres and Redis keep their data: .dev/db, unless we are root and the postgres
# user cannot reach into this checkout (e.g. under /root); then a folder in /var/tmp.
db_dir() {
  if [ -f "$dev/db-dir" ]; then cat "$dev/db-dir"; return; fi
  mkdir -p "$dev"
  local dir=$dev/db
  if [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$dev" 2>/dev/null; then
    dir=/var/tmp/latchkey-dev-$(printf '%s' "$root" | cksum | cut -d' ' -f1)
  fi
  echo "$dir" >"$dev/db-dir"
  echo "$dir"
}

postgres_running() {
  local dir
  dir=$(db_dir)
  [ -f "$dir/pg/data/PG_VERSION" ] && as_postgres "$(postgres_bin_dir)/pg_ctl" -D "$dir/pg/data" status >/dev/null 2>&1
}


start_databases() {
  local dir
  dir=$(db_dir)
  if postgres_running; then
    echo "dev: Postgres already runs"
  else
    port_open "$postgres_port" && { echo "dev: port $postgres_port (DEV_POSTGRES_PORT) is taken" >&2; exit 1; }
    start_postgres "$dir" "$postgres_port"
  fi
  local psql
  psql=$(postgres_bin_dir)/psql
  if ! "$psql" -h 127.0.0.1 -p "$postgres_port" -U postgres -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'latchkey'" | grep -q 1; then
    "$psql" -h 127.0.0.1 -p "$postgres_port" -U postgres -d postgres -qc "CREATE DATABASE latchkey" >/dev/null
  fi
  if redis-cli -p "$redis_port" ping >/dev/null 2>&1; then
    echo "dev: Redis already runs"
  else
    port_open "$redis_port" && { echo "dev: port $redis_port (DEV_REDIS_PORT) is taken" >&2; exit 1; }
    start_redis "$dir" "$redis_port"
    redis-cli -p "$redis_port" ping >/dev/null
  fi
}

# The gateway's role (CONTENT_DATABASE_URL): it may read, insert and update the tables of schema
# content, which content-state made and migrated, and nothing else. Run once content-state is up.
grant_content_access() {
  "$(postgres_bin_dir)/psql" -h 127.0.0.1 -p "$postgres_port" -U postgres -d latchkey -v ON_ERROR_STOP=1 -q <<'SQL' >/dev/null
SELECT 'CREATE ROLE latchkey_gateway LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'latchkey_gateway') \gexec
GRANT USAGE ON SCHEMA content TO latchkey_gateway;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA content TO latchkey_gateway;
SQL
}
