-- Shared by the bench's wrk scripts (loaded with dofile from the script's own folder): hands out
-- requests formatted once, in init, one per call (a table read), and prints one JSON line with a
-- round's summary (latencies in microseconds). WRK_DELAY_MS or WRK_RATE set: a fixed offered load
-- instead of as many requests as the server answers (the calling script sets the global `delay`
-- from delay(), at load time, where wrk looks for it).
local common = {}

--- wrk's `delay` hook: WRK_RATE set, a fixed rate (below); WRK_DELAY_MS set, that many ms before
--- each request; neither, nil (no delay).
function common.delay()
  local rate = tonumber(os.getenv("WRK_RATE") or "")
  if rate then return common.paced(rate) end
  local ms = tonumber(os.getenv("WRK_DELAY_MS") or "")
  if ms then return function() return ms end end
  return nil
end

--- WRK_RATE requests a second from this thread, whatever the answers' latency: every request
--- takes the next slot of one schedule (1000 / rate ms apart, on the monotonic clock through
--- LuaJIT's FFI) and its connection waits until that slot. A schedule more than a second behind
--- (the connections were all busy) restarts from now rather than sending the missed slots at once.
--- The connections must outnumber rate × latency, or the rate is not reached.
function common.paced(rate)
  local ffi = require("ffi")
  ffi.cdef [[
    typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
    int clock_gettime(int clock, bench_timespec *tp);
  ]]
  local ts = ffi.new("bench_timespec")
  local interval = 1000 / rate
  local nextAt = nil
  return function()
    ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
    local now = tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
    if nextAt == nil or nextAt < now - 1000 then nextAt = now end
    local wait = nextAt - now
    nextAt = nextAt + interval
    if wait < 0 then return 0 end
    return wait
  end
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
