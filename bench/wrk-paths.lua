-- Cycles through the request paths listed (one per line) in the file given after `--`. Every
-- request is formatted once, in init, so a request costs wrk one table read (formatting it per
-- request made wrk itself the ceiling, near 50k requests/s on one core). With WRK_DELAY_MS set,
-- each connection waits that long before each request: a fixed offered load (64 connections at
-- 3 ms ≈ 21k requests/s) instead of as many as the server answers. Prints one JSON line with the
-- round's summary (latencies in microseconds).
local requests = {}
local n, i = 0, 0

local delay_ms = tonumber(os.getenv("WRK_DELAY_MS") or "")
if delay_ms then
  delay = function() return delay_ms end
end

init = function(args)
  for line in io.lines(args[1]) do
    if line ~= "" then requests[#requests + 1] = wrk.format("GET", line) end
  end
  n = #requests
end

request = function()
  i = i + 1
  if i > n then i = 1 end
  return requests[i]
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'JSON {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"socketErrors":%d,"non2xx3xx":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
