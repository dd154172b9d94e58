# shellcheck shell=bash
# scripts/test's gates, so that no phase can pass by running nothing: a `swift test` phase
# must run every test its folders declare (a filter that matches nothing, a suite that is not
# compiled in, a target left out of Package.swift all show as fewer tests), and every suite
# that starts real processes must carry a time limit, so a hang fails the run instead of
# stopping CI at its own limit. Sourced by scripts/test.

# declared_tests FOLDER...: the number of @Test functions in the Swift files of the folders
# (a parameterized test counts once, as `swift test` counts it).
declared_tests() {
  grep -rhE '^[[:space:]]*@Test\b' --include='*.swift' "$@" | wc -l
}

# check_time_limits FOLDER...: every @Suite in the folders names a .timeLimit.
check_time_limits() {
  local missing
  missing=$(grep -rnE '^[[:space:]]*@Suite\b' --include='*.swift' "$@" | grep -v 'timeLimit' || true)
  if [ -n "$missing" ]; then
    echo "test: these suites start real processes and have no .timeLimit:" >&2
    echo "$missing" >&2
    return 1
  fi
}

# test_phase NAME EXPECTED LOG ARGS...: `swift test --skip-build ARGS`, its output also in LOG;
# fails when the tests fail, or when the run reports fewer than EXPECTED tests.
test_phase() (
  set +e
  name=$1 expected=$2 log=$3
  shift 3
  # The phase's temporary files (the logs of the processes its tests start, their keys and
  # certificates, private servers' folders) in a folder of its own, not loose in /tmp where
  # every run left hundreds: removed when the phase passes, kept and named when it fails.
  # Open to the postgres user, which runs the private Postgres servers some tests start in it.
  tmp=$(mktemp -d -t "latchkey-$name-tests.XXXXXX")
  chmod 755 "$tmp"
  TMPDIR=$tmp swift test --skip-build "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  if [ "$status" -eq 0 ]; then
    rm -rf "$tmp"
  else
    echo "test: the $name phase's temporary files are kept in $tmp"
  fi
  ran=$(sed -n 's/.*Test run with \([0-9][0-9]*\) tests\{0,1\} in .*/\1/p' "$log" | tail -n 1)
  if [ -z "$ran" ] || [ "$ran" -lt "$expected" ]; then
    echo "test: the $name phase ran ${ran:-no} tests; its folders declare $expected" >&2
    exit 1
  fi
  echo "test: the $name phase ran $ran tests (declared: $expected), exit $status"
  exit "$status"
)

# record_phase NAME STATUS [LOG]: notes a phase's exit status for `phase_summary`; a failed
# test phase's log gives the names of the tests that failed.
phase_results=()
record_phase() {
  local line="$1: exit $2"
  if [ "$2" -ne 0 ] && [ -n "${3:-}" ] && [ -f "$3" ]; then
    local failed
    failed=$(grep -E '✘ Test .* (failed|recorded an issue)' "$3" | grep -v '✘ Test run with' | sed -E 's/.*✘ Test ([^ ]+).*/\1/' | sort -u | head -20 | paste -sd' ' -)
    [ -n "$failed" ] && line="$line; failed: $failed"
    # A test process that dies (a crash, a signal) reports no test as failed: name the test it
    # was running (started, never passed: none failed here) and what swift test said of the exit.
    if [ -z "$failed" ]; then
      local running exit_line
      running=$(sed -nE 's/.*◇ Test ([^ ]+) started\..*/\1/p' "$3" | grep -vx run | while read -r name; do
        grep -qF "Test $name passed" "$3" || echo "$name"
      done | tail -n 1)
      exit_line=$(grep -E 'signal code|Exited with|Fatal error' "$3" | tail -n 1 | cut -c1-160)
      [ -n "$running" ] && line="$line; the test process stopped during $running"
      [ -n "$exit_line" ] && line="$line ($exit_line)"
    fi
  fi
  phase_results+=("$line")
}

# phase_summary: one line per phase, last in the output (CI shows its tail), so a failed run
# says where it failed.
phase_summary() {
  echo
  echo "test: summary"
  local line
  for line in "${phase_results[@]}"; do echo "  $line"; done
}
