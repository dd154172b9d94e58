# shellcheck shell=bash
# scripts/test's checks of the public HTTP API (openapi.yaml) and the admin console against the
# real stack: the debug executables started by scripts/dev (mock-idp, identity, tokens,
# content-state, gateway) on free ports in a folder of the caller's. Sourced by scripts/test
# after scripts/lib/services.sh.
#   1. openapi.yaml is valid OpenAPI 3.1 (openapi-spec-validator), and the openapi.json the
#      gateway embeds is its JSON (scripts/lib/openapi_json.py check);
#   2. the admin console in headless Chromium (Tests/API/admin_console_test.py);
#   3. schemathesis over every operation of the document, with a bearer token from a mock
#      sign-in and the admin cookie (Tests/API/conformance_hooks.py): no 5xx, and every
#      status, content type, header and body as documented.
# Any failure, or a stack that does not start, makes run_api_checks return non-zero.

# Pinned PyPI packages, installed into a virtual environment of the run.
api_check_packages=(openapi-spec-validator==0.9.0 schemathesis==4.32.5 selenium==4.51.0 PyYAML==6.0.4)

# Checks left out, and why: positive_data_acceptance wants a 2xx for every schema-valid body,
# but a well-formed identity token, refresh token or Apple notification that no provider
# signed is rightly refused (401, 400); unsupported_method and allow_header_conformance want
# 405 with Allow for a method a path lacks, where the error catalogue (DESIGN.md section 6,
# docs/api.md) answers any unknown route, method included, with 404 not_found.
api_check_exclusions=positive_data_acceptance,unsupported_method,allow_header_conformance

# Bounds of the schemathesis run: cases per operation and the whole run's time budget.
API_CHECK_MAX_EXAMPLES=${API_CHECK_MAX_EXAMPLES:-25}
API_CHECK_MAX_TIME=${API_CHECK_MAX_TIME:-300}

# api_check_tools VENV: the virtual environment with the pinned packages.
api_check_tools() {
  local venv=$1
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${api_check_packages[@]}"
}

# api_check_document VENV
api_check_document() {
  "$1/bin/openapi-spec-validator" openapi.yaml
  "$1/bin/python" scripts/lib/openapi_json.py check
}

# run_api_checks WORK BIN_DIR: everything above; the stack lives in WORK/stack and is stopped
# on the way out. Runs in a subshell so that its settings stay out of the caller's.
run_api_checks() (
  set -euo pipefail
  local work=$1 bin_dir=$2 venv=$1/api-venv status=0
  install_system_packages chromium chromium-driver curl openssl
  api_check_tools "$venv"
  api_check_document "$venv"

  export LATCHKEY_BIN_DIR=$bin_dir LATCHKEY_DEV_DIR=$work/stack
  local names=(GATEWAY GATEWAY_OPS IDENTITY IDENTITY_OPS TOKENS TOKENS_OPS CONTENT_STATE CONTENT_STATE_OPS MOCK_IDP POSTGRES REDIS)
  local ports index
  mapfile -t ports < <(free_ports "${#names[@]}")
  [ "${#ports[@]}" -eq "${#names[@]}" ] || { echo "api checks: could not find ${#names[@]} free ports" >&2; return 1; }
  for index in "${!names[@]}"; do
    export "DEV_${names[$index]}_PORT=${ports[$index]}"
  done
  # Schemathesis sends hundreds of wrong admin passwords on purpose: the hourly failure budget
  # would lock the admin login its own hooks need (AdminLoginHardeningTests test the budget).
  export ADMIN_LOGIN_FAILURE_BUDGET=0
  trap 'scripts/dev down >/dev/null 2>&1 || true' EXIT
  if ! scripts/dev up >"$work/stack-up.log" 2>&1; then
    echo "api checks: the stack did not start:" >&2
    cat "$work/stack-up.log" >&2
    return 1
  fi
  export GATEWAY_URL=http://127.0.0.1:$DEV_GATEWAY_PORT MOCK_IDP_URL=http://127.0.0.1:$DEV_MOCK_IDP_PORT
  export ADMIN_PASSWORD_FILE=$work/stack/admin_password PYTHONPATH=$PWD/Tests/API
  local reports=${API_CHECK_REPORT_DIR:-$PWD/.build/api-checks}
  mkdir -p "$reports"

  echo "api checks: the admin console in Chromium"
  SCREENSHOT_DIR=$reports/screenshots "$venv/bin/python" Tests/API/admin_console_test.py || status=1

  echo "api checks: schemathesis against $GATEWAY_URL"
  SCHEMATHESIS_HOOKS=conformance_hooks "$venv/bin/st" --config-file Tests/API/schemathesis.toml run openapi.yaml --url "$GATEWAY_URL" \
    --checks all --exclude-checks "$api_check_exclusions" \
    --phases examples,coverage,fuzzing,stateful --max-examples "$API_CHECK_MAX_EXAMPLES" --max-time "$API_CHECK_MAX_TIME" \
    --workers 1 --request-timeout 20 --suppress-health-check all \
    --report junit --report-dir "$reports" || status=1

  if [ $status -ne 0 ]; then
    echo "api checks: FAILED; the gateway's log ends:" >&2
    tail -n 30 "$work/stack/logs/gateway.log" >&2 || true
  fi
  return $status
)
