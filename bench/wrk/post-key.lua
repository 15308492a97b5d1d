-- Creates a task with a fresh Idempotency-Key on every request, to price the key against post.lua:
-- the thread's number and a count make each key unique in the run. BENCH_BODY is the JSON body.
local before, after
local sent = 0
local threads = 0

-- Runs in wrk's main state, once per thread, before the run: gives each thread its number.
function setup(thread)
  threads = threads + 1
  thread:set("number", threads)
end

function init(args)
  local marker = "\0key\0"
  local template = wrk.format(
    "POST", nil, { ["Content-Type"] = "application/json", ["Idempotency-Key"] = marker }, os.getenv("BENCH_BODY"))
  local at = string.find(template, marker, 1, true)
  before = string.sub(template, 1, at - 1) .. "bench-" .. number .. "-"
  after = string.sub(template, at + string.len(marker))
end

function request()
  sent = sent + 1
  return before .. sent .. after
end

done = require("bench").done
