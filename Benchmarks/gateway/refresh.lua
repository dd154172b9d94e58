-- POST /api/v1/auth/refresh: each refresh token is used once; the new one from each response
-- goes back into this thread's queue. Threads take disjoint slices of the seeded tokens.
local threads = {}
local counter = 0
function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local queue, head, tail = {}, 1, 0
function init(args)
  local count = tonumber(os.getenv("BENCH_THREADS"))
  local i = 0
  for line in io.lines(os.getenv("BENCH_DIR") .. "/refresh_tokens.txt") do
    if i % count == index then tail = tail + 1; queue[tail] = line end
    i = i + 1
  end
end

-- wrk calls request() once per thread before the run to check what it returns (and never
-- sends that): the first call leaves its token in the queue, or that chain would be lost.
local verified = false
request = function()
  local token = queue[head]
  if not verified then
    verified = true
  elseif token == nil then
    token = "exhausted"
  else
    queue[head] = nil; head = head + 1
  end
  return wrk.format("POST", "/api/v1/auth/refresh", { ["Content-Type"] = "application/json" },
    '{"refresh_token":"' .. token .. '"}')
end

response = function(status, headers, body)
  local token = body:match('"refresh_token":"([^"]+)"')
  if token then tail = tail + 1; queue[tail] = token end
end
