-- POST /api/v1/auth/apple with one of the minted identity tokens (one per seeded sign-in
-- user, each signed in once already), round robin: a user signing in again on a new device.
local tokens = {}
for line in io.lines(os.getenv("BENCH_DIR") .. "/apple_tokens.txt") do tokens[#tokens + 1] = line end
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "/api/v1/auth/apple", { ["Content-Type"] = "application/json" },
    '{"identity_token":"' .. tokens[n % #tokens + 1] .. '","device_name":"bench"}')
end
