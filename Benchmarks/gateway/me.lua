-- GET /api/v1/auth/me with the access token of one of the seeded users, round robin.
local tokens = {}
for line in io.lines(os.getenv("BENCH_DIR") .. "/access_tokens.txt") do tokens[#tokens + 1] = line end
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/api/v1/auth/me", { ["Authorization"] = "Bearer " .. tokens[n % #tokens + 1] })
end
