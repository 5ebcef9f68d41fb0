-- wrk counter: every response by status, and wrk's own error counts, printed as one RESULT line.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  found = 0
  other = 0
end

function response(status, headers, body)
  if status == 302 then found = found + 1 else other = other + 1 end
end

function done(summary, latency, requests)
  local f, o = 0, 0
  for _, t in ipairs(threads) do
    f = f + t:get("found")
    o = o + t:get("other")
  end
  local e = summary.errors
  io.write(string.format("RESULT requests=%d found=%d other=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, f, o, e.connect, e.read, e.write, e.timeout))
end
