# Shared by scripts/test, scripts/bench and scripts/dev: install the system packages the
# project needs and run a throwaway Postgres and Redis in a folder of the caller's.

# Debian packages the build and the tests need, plus any named as arguments; installed only
# when missing.
install_system_packages() {
  local needed=(pkg-config libpq-dev libssl-dev libhiredis-dev redis-server postgresql python3 make gcc bzip2 "$@")
  local missing=()
  for p in "${needed[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# A free TCP port on 127.0.0.1.
free_port() {
  free_ports 1
}

# N distinct free TCP ports on 127.0.0.1, one a line. Every socket stays bound until all N are
# chosen: ports picked one at a time, before anything listens on them, can repeat (the api
# checks once gave the gateway the port of identity's ops server).
free_ports() {
  python3 -c 'import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets: s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in sockets))
for s in sockets: s.close()' "$1"
}

# The folder holding initdb, pg_ctl and postgres.
postgres_bin_dir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir
  else
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
  fi
}

# Runs a command as the postgres user when we are root (PostgreSQL refuses to run as root).
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_postgres DIR [PORT]: initdb in DIR/pg (unless already done), start on PORT or a free
# port, export DATABASE_URL.
start_postgres() {
  local dir=$1 bin port
  bin=$(postgres_bin_dir)
  port=${2:-$(free_port)}
  mkdir -p "$dir/pg"
  [ "$(id -u)" -eq 0 ] && chown -R postgres:postgres "$dir" && chmod 755 "$dir"
  if [ ! -f "$dir/pg/data/PG_VERSION" ]; then
    as_postgres "$bin/initdb" -D "$dir/pg/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/pg/initdb.log" 2>&1
  fi
  as_postgres "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/postgres.log" -w -t 60 \
    -o "-p $port -h 127.0.0.1 -k $dir/pg -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
  export POSTGRES_BIN_DIR=$bin
  export PGDATA_DIR=$dir/pg/data
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
}

# start_redis DIR [PORT]: a Redis without persistence that never evicts keys (revocations
# must not vanish under memory pressure) on PORT or a free port, export REDIS_URL.
start_redis() {
  local dir=$1 port
  port=${2:-$(free_port)}
  mkdir -p "$dir/redis"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --maxmemory-policy noeviction --daemonize yes \
    --dir "$dir/redis" --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log"
  for _ in $(seq 1 50); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  export REDIS_URL="redis://127.0.0.1:$port/0"
}

# stop_services DIR [MODE]: stop what start_postgres and start_redis started in DIR; MODE is
# pg_ctl's shutdown mode (immediate for throwaway data, fast to keep it).
stop_services() {
  local dir=$1 mode=${2:-immediate}
  if [ -f "$dir/redis/redis.pid" ]; then kill "$(cat "$dir/redis/redis.pid")" 2>/dev/null || true; fi
  if [ -d "$dir/pg/data" ]; then
    as_postgres "$(postgres_bin_dir)/pg_ctl" -D "$dir/pg/data" -m "$mode" -w stop >/dev/null 2>&1 || true
  fi
}
