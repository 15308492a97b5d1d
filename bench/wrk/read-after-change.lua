-- A read after a change: every connection sends a POST of a small task (BENCH_BODY) with a GET of
-- the list pipelined behind it, and waits for both answers before it sends the next pair, so each
-- GET is answered right after a change made on its own connection. wrk counts each answer as a
-- request, and times a pair as one. The GET carries the headers in the global GET_HEADERS when a
-- script sets it before requiring this one (read-after-change-304.lua).
--
-- A thread stops after about BENCH_PAIRS pairs, and ends the run: a run then adds about as many
-- tasks to the list whatever the server's speed, so that the servers compared on it read the same
-- lists. wrk's --duration still ends a run that does not get there.
local bench = require("bench")

local pair
local quota
local sent = 0

function init(args)
  local post = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, os.getenv("BENCH_BODY"))
  pair = post .. wrk.format("GET", nil, GET_HEADERS or {})
  quota = tonumber(os.getenv("BENCH_PAIRS"))
end

-- Called for each pair a connection sends (and, in the first thread, once by wrk beforehand, to
-- count the requests in a pair: hence "about").
function request()
  sent = sent + 1
  if sent == quota then
    bench.stop()
  end
  return pair
end

done = bench.done
