# shellcheck shell=bash
# scripts/dev: building or finding the executables, starting, recording and stopping the processes.
# Sourced by scripts/dev, which sets the variables these use ($dev, the ports, ...).

# Release builds of the five executables and of latchkey-services (the four services' launchers
# run it), as the image builds them (release-toolset.json, libpq without GSSAPI and LDAP linked
# in: scripts/lib/libpq.sh), unless LATCHKEY_BIN_DIR names a folder holding them.
prepare_binaries() {
  local needed=("${executables[@]}" latchkey-services) build_flags=(-c release --toolset release-toolset.json)
  if [ -n "${LATCHKEY_BIN_DIR:-}" ]; then
    bin_dir=$(cd "$LATCHKEY_BIN_DIR" && pwd)
  else
    use_static_libpq "$root/.build/libpq" ||
      echo "dev: building with the system's libpq (it loads GSSAPI's and LDAP's libraries: about 5 MiB more)" >&2
    for product in "${needed[@]}"; do
      echo "dev: swift build ${build_flags[*]} --product $product"
      swift build "${build_flags[@]}" --product "$product"
    done
    bin_dir=$(swift build "${build_flags[@]}" --show-bin-path)
  fi
  for name in "${needed[@]}"; do
    [ -x "$bin_dir/$name" ] || { echo "dev: $bin_dir/$name is missing" >&2; exit 1; }
  done
}

# start_process NAME VAR=VALUE...: starts the executable NAME detached, logging to .dev/logs.
start_process() {
  local name=$1 log
  shift
  log=$(log_file "$name")
  : >"$log"
  setsid env "$@" "$bin_dir/$name" >>"$log" 2>&1 </dev/null &
  echo $! >"$(pid_file "$name")"
  # The pid is setsid's, then env's, until both have exec'd the executable: wait for that, so
  # that running_pid means "runs" from here on (an exit shows in wait_until).
  for _ in $(seq 1 50); do
    running_pid "$name" >/dev/null && return 0
    sleep 0.1
  done
}

mock_urls_printed() { grep -q '^GOOGLE_USERINFO_URL=' "$(log_file mock-idp)"; }
gateway_healthy() { curl -fsS "http://127.0.0.1:$gateway_port/healthz" >/dev/null 2>&1; }

check_ports_free() {
  local port
  for port in "$gateway_port" "$gateway_ops_port" "$identity_port" "$identity_ops_port" "$tokens_port" "$tokens_ops_port" \
    "$content_state_port" "$content_state_ops_port" "$mock_idp_port"; do
    if port_open "$port"; then
      echo "dev: port $port is taken; stop what uses it or choose another (DEV_*_PORT, see scripts/dev)" >&2
      exit 1
    fi
  done
}

start_stack() {
  local common=(ENVIRONMENT=development LOG_FORMAT=text "LOG_LEVEL=${LOG_LEVEL:-info}"
    "SERVICE_TOKEN=$service_token" RPC_HOST=127.0.0.1)

  start_process mock-idp MOCK_IDP_HOST=127.0.0.1 "MOCK_IDP_PORT=$mock_idp_port"
  wait_until mock-idp mock_urls_printed
  local mock_urls=()
  mapfile -t mock_urls < <(grep -E '^(APPLE|GOOGLE)_[A-Z_]+=' "$(log_file mock-idp)")

  start_process identity "${common[@]}" "RPC_PORT=$identity_port" "OPS_PORT=$identity_ops_port" \
    "DATABASE_URL=$database_url" "REDIS_URL=$redis_url" "APPLE_AUDIENCES=$apple_audience" "GOOGLE_AUDIENCES=$google_audience" \
    "${mock_urls[@]}"
  start_process tokens "${common[@]}" "RPC_PORT=$tokens_port" "OPS_PORT=$tokens_ops_port" \
    "DATABASE_URL=$database_url" "REDIS_URL=$redis_url" "JWT_ISSUER=$jwt_issuer" "JWT_AUDIENCE=$jwt_audience" \
    "SIGNING_KEYS_DIR=$dev/keys"
  start_process content-state "${common[@]}" "RPC_PORT=$content_state_port" "OPS_PORT=$content_state_ops_port" \
    "DATABASE_URL=$database_url"
  wait_until identity port_open "$identity_port"
  wait_until tokens port_open "$tokens_port"
  wait_until content-state port_open "$content_state_port"
  grant_content_access

  local gateway_settings=() name
  for name in RATE_LIMIT_SIGNIN_PER_MIN RATE_LIMIT_REFRESH_PER_MIN RATE_LIMIT_ADMIN_LOGIN_PER_MIN \
    ADMIN_LOGIN_FAILURE_BUDGET TRUSTED_PROXIES CORS_ALLOWED_ORIGINS MAX_BODY_BYTES REVOCATION_FAIL_OPEN REVOCATION_CACHE_TTL; do
    [ -n "${!name:-}" ] && gateway_settings+=("$name=${!name}")
  done
  start_process gateway "${common[@]}" HTTP_HOST=127.0.0.1 "HTTP_PORT=$gateway_port" "OPS_PORT=$gateway_ops_port" \
    "REDIS_URL=$redis_url" \
    "JWT_ISSUER=$jwt_issuer" "JWT_AUDIENCE=$jwt_audience" "ADMIN_PASSWORD=$admin_password" \
    "IDENTITY_ENDPOINTS=127.0.0.1:$identity_port" "TOKENS_ENDPOINTS=127.0.0.1:$tokens_port" \
    "CONTENT_STATE_ENDPOINTS=127.0.0.1:$content_state_port" \
    "CONTENT_DATABASE_URL=postgres://latchkey_gateway@127.0.0.1:$postgres_port/latchkey" "${gateway_settings[@]}"
  wait_until gateway gateway_healthy
}

# The ports of the running stack, so that status, down and example use them too.
save_ports() {
  cat >"$dev/ports" <<EOF
DEV_GATEWAY_PORT=$gateway_port
DEV_GATEWAY_OPS_PORT=$gateway_ops_port
DEV_IDENTITY_PORT=$identity_port
DEV_IDENTITY_OPS_PORT=$identity_ops_port
DEV_TOKENS_PORT=$tokens_port
DEV_TOKENS_OPS_PORT=$tokens_ops_port
DEV_CONTENT_STATE_PORT=$content_state_port
DEV_CONTENT_STATE_OPS_PORT=$content_state_ops_port
DEV_MOCK_IDP_PORT=$mock_idp_port
DEV_POSTGRES_PORT=$postgres_port
DEV_REDIS_PORT=$redis_port
EOF
}

load_ports() {
  if [ -f "$dev/ports" ]; then
    # shellcheck disable=SC1091
    source "$dev/ports"
    gateway_port=$DEV_GATEWAY_PORT gateway_ops_port=${DEV_GATEWAY_OPS_PORT:-9000} identity_port=$DEV_IDENTITY_PORT identity_ops_port=$DEV_IDENTITY_OPS_PORT
    tokens_port=$DEV_TOKENS_PORT tokens_ops_port=$DEV_TOKENS_OPS_PORT content_state_port=$DEV_CONTENT_STATE_PORT
    content_state_ops_port=$DEV_CONTENT_STATE_OPS_PORT mock_idp_port=$DEV_MOCK_IDP_PORT
    postgres_port=$DEV_POSTGRES_PORT redis_port=$DEV_REDIS_PORT
    database_url="postgres://postgres@127.0.0.1:$postgres_port/latchkey"
    redis_url="redis://127.0.0.1:$redis_port/0"
  fi
}


# Stops the executables (SIGTERM, up to 15 s to drain, then SIGKILL), then Redis and Postgres.
stop_all() {
  local name pid stopped=()
  for ((i = ${#executables[@]} - 1; i >= 0; i--)); do
    name=${executables[$i]}
    if pid=$(running_pid "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      stopped+=("$name")
    fi
  done
  for name in "${stopped[@]}"; do
    for _ in $(seq 1 75); do
      running_pid "$name" >/dev/null || break
      sleep 0.2
    done
    if pid=$(running_pid "$name"); then
      echo "dev: $name did not stop within 15 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$dev"/run/*.pid
  local databases=false
  if [ -f "$dev/db-dir" ]; then
    local dir
    dir=$(db_dir)
    if postgres_running || [ -f "$dir/redis/redis.pid" ]; then databases=true; fi
    stop_services "$dir" fast
  fi
  if [ ${#stopped[@]} -eq 0 ] && [ "$databases" = false ]; then
    echo "dev: nothing was running"
  else
    echo "dev: stopped ${stopped[*]:-}${stopped[*]:+, }$([ "$databases" = true ] && echo "Redis and Postgres")"
  fi
}
