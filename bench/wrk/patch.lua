-- Edits a task with a merge patch: each request renames a task picked at random among ids
-- BENCH_FIRST (1 unless set) to BENCH_TASKS (the list as the trial grew it, none deleted), to a
-- title no other request of the run uses (the thread's number and a count), so that every PATCH
-- changes its task. With BENCH_PATCHES, a thread stops after about that many and ends the run.
-- The tasks are those under the URL's path: /tasks, or a named list's /lists/{name}/tasks.
local bench = require("bench")

local first
local tasks
local quota
local sent = 0
local threads = 0
local headers = { ["Content-Type"] = "application/merge-patch+json" }

-- Runs in wrk's main state, once per thread, before the run: gives each thread its number.
function setup(thread)
  threads = threads + 1
  thread:set("number", threads)
end

function init(args)
  first = tonumber(os.getenv("BENCH_FIRST") or "1")
  tasks = tonumber(os.getenv("BENCH_TASKS"))
  quota = tonumber(os.getenv("BENCH_PATCHES") or "0")
end

function request()
  sent = sent + 1
  if sent == quota then
    bench.stop()
  end
  local body = string.format('{"title":"Edit %d-%07d"}', number, sent)
  return wrk.format("PATCH", wrk.path .. "/" .. math.random(first, tasks), headers, body)
end

done = bench.done
