-- Shared by the bench's wrk scripts (loaded with dofile from the script's own folder): hands out
-- requests formatted once, in init, one per call (a table read), and prints one JSON line with a
-- round's summary (latencies in microseconds). WRK_DELAY_MS set: each connection waits that long
-- before each request, a fixed offered load instead of as many requests as the server answers
-- (the calling script sets the global `delay` from delay(), at load time, where wrk looks for it).
local common = {}

--- wrk's `delay` hook for WRK_DELAY_MS, or nil (no delay) when it is not set.
function common.delay()
  local ms = tonumber(os.getenv("WRK_DELAY_MS") or "")
  if ms then return function() return ms end end
  return nil
end

--- A request function cycling through `requests` (filled later, in init).
function common.cycle(requests)
  local i = 0
  return function()
    i = i + 1
    if i > #requests then i = 1 end
    return requests[i]
  end
end

function common.done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'JSON {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"socketErrors":%d,"non2xx3xx":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end

return common
