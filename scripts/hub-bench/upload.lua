-- wrk script for scripts/hub-bench.sh: uploads as `sbc-bench share` sends them (one
-- multipart/form-data `file` part) of real sbc-bench logs, each under a device name of
-- its own so that every upload is a new result (a run of its own, not a duplicate).
-- Usage: wrk -s upload.lua URL -- LISTFILE   (LISTFILE: one log path per line)
-- Prints, at the end: "uploads: created=N same=N other=N" over every thread.

local boundary = "sbc-bench-hub-bench-7f3a9c"
local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  logs = {}
  local list = io.open(args[1], "r")
  for path in list:lines() do
    local f = io.open(path, "rb")
    if f then
      local t = f:read("*a")
      f:close()
      if t:find("sbc%-bench v") then
        table.insert(logs, t)
      end
    end
  end
  list:close()
  created, same, other = 0, 0, 0
end

function request()
  counter = counter + 1
  local log = logs[(counter % #logs) + 1]
  -- A device name of its own: `sbc-bench v0.9.72 Radxa ROCK 5B` → `… bench-T-N Radxa ROCK 5B`.
  local body = log:gsub("(sbc%-bench v%S+ )", "%1bench-" .. tid .. "-" .. counter .. " ", 1)
  local payload = "--" .. boundary .. "\r\n" ..
    "Content-Disposition: form-data; name=\"file\"; filename=\"sbc-bench.txt\"\r\n" ..
    "Content-Type: text/plain; charset=utf-8\r\n\r\n" .. body .. "\r\n--" .. boundary .. "--\r\n"
  return wrk.format("POST", "/", { ["Content-Type"] = "multipart/form-data; boundary=" .. boundary }, payload)
end

function response(status, headers, body)
  if status == 201 then
    created = created + 1
  elseif status == 200 then
    same = same + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local c, s, o = 0, 0, 0
  for _, t in ipairs(threads) do
    c = c + t:get("created")
    s = s + t:get("same")
    o = o + t:get("other")
  end
  io.write(string.format("uploads: created=%d same=%d other=%d\n", c, s, o))
  io.write(string.format("latency: p50=%.1fms p99=%.1fms\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
