-- wrk at a bounded rate: count.lua's counter, and each connection waits WRK_DELAY_MS between requests.
dofile(os.getenv("WRK_COUNT_LUA"))
local pause = tonumber(os.getenv("WRK_DELAY_MS"))

function delay()
  return pause
end
