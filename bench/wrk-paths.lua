-- Cycles through the request paths listed (one per line) in the file given after `--`. Every
-- request is formatted once, in init, so a request costs wrk one table read (formatting it per
-- request made wrk itself the ceiling, near 50k requests/s on one core). With WRK_DELAY_MS set,
-- each connection waits that long before each request: a fixed offered load (64 connections at
-- 3 ms ≈ 21k requests/s) instead of as many as the server answers. Prints one JSON line with the
-- round's summary (latencies in microseconds).
local common = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "wrk-common.lua")
local requests = {}

delay = common.delay()

init = function(args)
  for line in io.lines(args[1]) do
    if line ~= "" then requests[#requests + 1] = wrk.format("GET", line) end
  end
end

request = common.cycle(requests)

done = common.done
