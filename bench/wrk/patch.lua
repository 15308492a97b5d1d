-- Edits a task with a merge patch: each request renames a task picked at random among ids 1 to
-- BENCH_TASKS (the list as the trial grew it, none deleted), to a title no other request uses
-- (the thread's number and a count), so that every PATCH changes its task.
local tasks
local sent = 0
local threads = 0
local headers = { ["Content-Type"] = "application/merge-patch+json" }

-- Runs in wrk's main state, once per thread, before the run: gives each thread its number.
function setup(thread)
  threads = threads + 1
  thread:set("number", threads)
end

function init(args)
  tasks = tonumber(os.getenv("BENCH_TASKS"))
end

function request()
  sent = sent + 1
  local body = string.format('{"title":"Edit %d-%07d"}', number, sent)
  return wrk.format("PATCH", "/tasks/" .. math.random(tasks), headers, body)
end

done = require("bench").done
