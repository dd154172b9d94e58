-- POST /api/v1/state/query with 50 item ids (25 favorited and read, 25 favorited) per call.
local tokens = {}
for line in io.lines(os.getenv("BENCH_DIR") .. "/access_tokens.txt") do tokens[#tokens + 1] = line end
local ids = {}
for i = 0, 49 do ids[#ids + 1] = '"item-' .. i .. '"' end
local body = '{"item_ids":[' .. table.concat(ids, ",") .. ']}'
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "/api/v1/state/query",
    { ["Authorization"] = "Bearer " .. tokens[n % #tokens + 1], ["Content-Type"] = "application/json" }, body)
end

-- BENCH_DELAY_MS (the paced scenarios): each connection waits this long between an answer and
-- its next request (wrk's delay(); the latency wrk reports leaves the wait out).
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
if pause > 0 then
  function delay() return pause end
end
