# shellcheck shell=bash
# scripts/dev: small helpers (secrets in files, ports, pid and log files, waiting).
# Sourced by scripts/dev, which sets the variables these use ($dev, the ports, ...).

# A random URL-safe secret of about 4/3 * $1 characters.
random_secret() {
  python3 -c "import secrets; print(secrets.token_urlsafe($1))"
}

# write_secret FILE VALUE: writes VALUE readable by the owner only.
write_secret() {
  (umask 077 && printf '%s\n' "$2" >"$1")
}

# True when something accepts TCP connections on 127.0.0.1:PORT.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pid_file() { echo "$dev/run/$1.pid"; }
log_file() { echo "$dev/logs/$1.log"; }

# The pid of NAME when that process runs (the pid file's process is still our executable).
running_pid() {
  local file pid exe
  file=$(pid_file "$1")
  [ -f "$file" ] || return 1
  pid=$(cat "$file")
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  exe=${exe% (deleted)}
  case $(basename "$exe") in
    "$1") ;;
    # The four services are one executable; its launchers name the service as the first argument.
    latchkey-services) [ "$(tr '\0' '\n' <"/proc/$pid/cmdline" | sed -n 2p)" = "$1" ] || return 1 ;;
    *) return 1 ;;
  esac
  echo "$pid"
}

# fail_start NAME WHY: shows the end of NAME's log, stops what started, exits.
fail_start() {
  echo "dev: $1 $2; the end of $(log_file "$1"):" >&2
  tail -n 20 "$(log_file "$1")" | sed 's/^/  /' >&2
  stop_all >/dev/null
  exit 1
}

# wait_until NAME CHECK...: waits up to 60 s for CHECK to succeed while NAME runs.
wait_until() {
  local name=$1
  shift
  for _ in $(seq 1 300); do
    "$@" && return 0
    running_pid "$name" >/dev/null || fail_start "$name" "exited"
    sleep 0.2
  done
  fail_start "$name" "was not ready within 60 s"
}
