-- PUT /api/v1/favorites/item-N with a new position each time, so that every request changes
-- the item. BENCH_PUT_USERS=1: all requests as the first seeded user (its writers queue on one
-- lock); otherwise each request as one of the seeded users at random. N is random in 0..999.
local tokens = {}
for line in io.lines(os.getenv("BENCH_DIR") .. "/access_tokens.txt") do tokens[#tokens + 1] = line end
local users = tonumber(os.getenv("BENCH_PUT_USERS") or "0")
if users < 1 or users > #tokens then users = #tokens end
local counter = 0
function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
end

local n = 0
function init(args)
  math.randomseed(os.time() * 100 + index)
  n = index * 1000000000
end

request = function()
  n = n + 1
  local token = tokens[math.random(users)]
  return wrk.format("PUT", "/api/v1/favorites/item-" .. math.random(0, 999),
    { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" },
    '{"position":' .. n .. '}')
end

-- BENCH_DELAY_MS (the paced scenarios): each connection waits this long between an answer and
-- its next request (wrk's delay(); the latency wrk reports leaves the wait out).
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
if pause > 0 then
  function delay() return pause end
end
