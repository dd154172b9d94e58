-- GET /healthz: the HTTP floor (no token, no backend), what every request crosses.
request = function()
  return wrk.format("GET", "/healthz")
end
