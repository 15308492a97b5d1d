-- Creates a task (BENCH_BODY), then deletes it, BENCH_PAIRS times: each thread deletes the tasks
-- its POSTs created, oldest first, before it creates the next, so the list stays at its length
-- plus the pairs in flight. The thread that reaches its count ends the run as read-after-change.lua does.
local bench = require("bench")

local post
local quota
local created = 0
local created_ids = {}
local first = 1
local last = 0

function init(args)
  post = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, os.getenv("BENCH_BODY"))
  quota = tonumber(os.getenv("BENCH_PAIRS"))
end

function request()
  if first <= last then
    local id = created_ids[first]
    created_ids[first] = nil
    first = first + 1
    return wrk.format("DELETE", "/tasks/" .. id)
  end
  created = created + 1
  if created == quota then
    bench.stop()
  end
  return post
end

function response(status, headers, body)
  local id = string.match(body, '^{"id":(%d+)')
  if id ~= nil then
    last = last + 1
    created_ids[last] = id
  end
end

done = bench.done
