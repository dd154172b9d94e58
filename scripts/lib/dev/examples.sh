# shellcheck shell=bash
# scripts/dev: what `up` prints, and the copy-paste sign-in example.
# Sourced by scripts/dev, which sets the variables these use ($dev, the ports, ...).

print_summary() {
  local dir
  dir=$(db_dir)
  echo
  echo "Latchkey runs: gateway http://127.0.0.1:$gateway_port (ENVIRONMENT=development)"
  echo
  echo "Logs:"
  for name in "${executables[@]}"; do
    printf '  %-14s %s\n' "$name" "$(log_file "$name")"
  done
  printf '  %-14s %s\n' postgres "$dir/pg/postgres.log" redis "$dir/redis/redis.log"
  echo
  echo "Postgres $database_url, Redis $redis_url"
  echo "SERVICE_TOKEN is in $dev/service_token; signing keys in $dev/keys"
  if [ "$admin_password_is_new" = true ]; then
    echo "Admin password (shown once; also in $dev/admin_password): $admin_password"
  else
    echo "Admin password: in $dev/admin_password"
  fi
  echo
  echo "Sign in with a mock Apple account and add a favorite (scripts/dev try runs it):"
  echo
  example_text | sed 's/^/  /'
  echo
  echo "scripts/dev status | logs [NAME] | down"
}


example_text() {
  cat <<EOF
# (a) a mock Apple identity token for a test user, minted by mock-idp
IDENTITY_TOKEN=\$(curl -fsS -X POST http://127.0.0.1:$mock_idp_port/mock/apple/identity-token \\
  -H 'Content-Type: application/json' \\
  -d '{"sub": "000123.demo", "aud": "$apple_audience", "email": "demo@example.com"}' \\
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
# (b) sign in with it: a token response with access_token and refresh_token
ACCESS_TOKEN=\$(curl -fsS -X POST http://127.0.0.1:$gateway_port/api/v1/auth/apple \\
  -H 'Content-Type: application/json' \\
  -d "{\\"identity_token\\": \\"\$IDENTITY_TOKEN\\", \\"device_name\\": \\"curl\\"}" \\
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
# (c) add item-42 to the user's favorites
curl -fsS -X PUT http://127.0.0.1:$gateway_port/api/v1/favorites/item-42 \\
  -H "Authorization: Bearer \$ACCESS_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"nickname": "my first favorite"}'
echo
# (d) Apple tells the server the person stopped using Sign in with Apple with the app: mock-idp
#     mints the notification as Apple posts it, the gateway applies it (200)
curl -fsS -X POST http://127.0.0.1:$mock_idp_port/mock/apple/notification \\
  -H 'Content-Type: application/json' \\
  -d '{"sub": "000123.demo", "aud": "$apple_audience", "type": "consent-revoked"}' \\
| curl -fsS -X POST http://127.0.0.1:$gateway_port/api/v1/auth/apple/notifications \\
  -H 'Content-Type: application/json' -d @- -w 'notification: %{http_code}\\n'
# (e) every session of the user ended: the access token gets 401 session_revoked (sign in again)
curl -sS http://127.0.0.1:$gateway_port/api/v1/auth/me -H "Authorization: Bearer \$ACCESS_TOKEN"
echo
EOF
}
