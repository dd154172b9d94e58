-- A DPoP-bound request per line of BENCH_DIR/dpop_requests.<thread>.txt (`token<TAB>proof`,
-- made by dpop.py proofs just before the run): each proof is spent once (the gateway refuses a
-- replayed jti). BENCH_METHOD and BENCH_PATH name the request; BENCH_BODY is its body, if any.
local threads, counter = {}, 0
function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
end

local requests, n = {}, 0
local method, path, body = os.getenv("BENCH_METHOD"), os.getenv("BENCH_PATH"), os.getenv("BENCH_BODY")
function init(args)
  for line in io.lines(os.getenv("BENCH_DIR") .. "/dpop_requests." .. index .. ".txt") do
    local tab = line:find("\t", 1, true)
    requests[#requests + 1] = { line:sub(1, tab - 1), line:sub(tab + 1) }
  end
end

request = function()
  n = n + 1
  local r = requests[(n - 1) % #requests + 1]
  local headers = { ["Authorization"] = "DPoP " .. r[1], ["DPoP"] = r[2] }
  if body then headers["Content-Type"] = "application/json" end
  return wrk.format(method, path, headers, body)
end
