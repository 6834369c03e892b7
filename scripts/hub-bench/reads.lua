-- wrk script for scripts/hub-bench.sh: GETs of the paths in LISTFILE (one per line), in
-- turn, each thread from its own place in the list.
-- Usage: wrk -s reads.lua URL -- LISTFILE
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  paths = {}
  for p in io.lines(args[1]) do
    table.insert(paths, p)
  end
  i = tid * 7919
  errors = 0
end

function request()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end

function response(status, headers, body)
  if status ~= 200 then
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  local e = 0
  for _, t in ipairs(threads) do
    e = e + t:get("errors")
  end
  io.write(string.format("reads: not-200=%d\n", e))
  io.write(string.format("latency: p50=%.1fms p99=%.1fms\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
