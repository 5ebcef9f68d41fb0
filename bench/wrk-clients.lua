-- Cycles through the request paths listed (one per line) in the file given after `--`, as
-- realistic traffic behind one trusted proxy: each request carries an X-Forwarded-For address
-- from 10,000 distinct public IPv4 addresses and a User-Agent from 500 distinct browser strings
-- (browsers x versions x operating systems), both chosen deterministically. Every request is
-- formatted once, in init (at least 10,000 of them, so every address is used), so a request costs
-- wrk one table read. WRK_DELAY_MS gives a fixed offered load, as in wrk-paths.lua. Prints one
-- JSON line with the round's summary (latencies in microseconds).
local common = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "wrk-common.lua")
local requests = {}

delay = common.delay()

local browsers = {
  function(v, os) return "Mozilla/5.0 (" .. os .. ") AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" .. v .. ".0.0.0 Safari/537.36" end,
  function(v, os) return "Mozilla/5.0 (" .. os .. "; rv:" .. v .. ".0) Gecko/20100101 Firefox/" .. v .. ".0" end,
  function(v, os) return "Mozilla/5.0 (" .. os .. ") AppleWebKit/605.1.15 (KHTML, like Gecko) Version/" .. (10 + (v - 110) / 2) .. ".1 Safari/605.1.15" end,
  function(v, os) return "Mozilla/5.0 (" .. os .. ") AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" .. v .. ".0.0.0 Safari/537.36 Edg/" .. v .. ".0.0.0" end,
  function(v, os) return "Mozilla/5.0 (" .. os .. ") AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" .. v .. ".0.0.0 Mobile Safari/537.36" end,
}
local systems = {
  "Windows NT 10.0; Win64; x64", "Macintosh; Intel Mac OS X 10_15_7", "X11; Linux x86_64",
  "iPhone; CPU iPhone OS 17_4 like Mac OS X", "Linux; Android 14; Pixel 8", "iPad; CPU OS 16_6 like Mac OS X",
  "Windows NT 6.1; Win64; x64", "X11; Ubuntu; Linux x86_64", "Linux; Android 13; SM-S918B", "CrOS x86_64 14541.0.0",
}

init = function(args)
  local paths, addresses, agents = {}, {}, {}
  for line in io.lines(args[1]) do
    if line ~= "" then paths[#paths + 1] = line end
  end
  -- 10,000 addresses: a fixed linear congruential walk over public /8s (no 10, 127, 172, 192).
  local state = 12345
  while #addresses < 10000 do
    state = (state * 1103515245 + 12345) % 2147483648
    local a = 1 + state % 222
    if a ~= 10 and a ~= 127 and a ~= 172 and a ~= 192 then
      addresses[#addresses + 1] = a .. "." .. math.floor(state / 256) % 256 .. "." .. math.floor(state / 65536) % 256 .. "." .. 1 + math.floor(state / 16) % 254
    end
  end
  -- 500 User-Agents: 5 browsers x 10 versions x 10 systems.
  for b = 1, #browsers do
    for v = 0, 9 do
      for s = 1, #systems do
        agents[#agents + 1] = browsers[b](110 + v * 2, systems[s])
      end
    end
  end
  local count = math.max(#paths, #addresses)
  for k = 1, count do
    requests[k] = wrk.format("GET", paths[(k - 1) % #paths + 1], {
      ["X-Forwarded-For"] = addresses[(k * 7919 - 1) % #addresses + 1],
      ["User-Agent"] = agents[(k * 104729 - 1) % #agents + 1],
    })
  end
end

request = common.cycle(requests)

done = common.done
