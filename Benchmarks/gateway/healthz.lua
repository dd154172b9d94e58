-- GET /healthz: the HTTP floor (no token, no backend), what every request crosses.
request = function()
  return wrk.format("GET", "/healthz")
end

-- BENCH_DELAY_MS (healthz-paced): each connection waits this long between an answer and its
-- next request, as in the paced scenarios; the latency is then the floor theirs stand on.
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
if pause > 0 then
  function delay() return pause end
end
