-- Like wrk-paths.lua, for lines "path<TAB>cookie": each request carries its own Cookie header
-- (a password-protected link's cookie), formatted once, in init.
local common = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*/)") .. "wrk-common.lua")
local requests = {}

delay = common.delay()

init = function(args)
  for line in io.lines(args[1]) do
    local path, cookie = line:match("^([^\t]+)\t(.*)$")
    if path then
      -- wrk.format takes these headers instead of the command line's (-H): keep those too.
      local headers = { Cookie = cookie }
      for k, v in pairs(wrk.headers) do headers[k] = v end
      requests[#requests + 1] = wrk.format("GET", path, headers)
    end
  end
end

request = common.cycle(requests)

done = common.done
