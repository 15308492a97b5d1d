-- What every script shares: the summary as one JSON line, which bench/lib/load.ts reads, and the end
-- of a run on a count rather than on --duration.
local ffi = require("ffi")
ffi.cdef([[
int getpid(void);
int kill(int pid, int sig);
]])
local SIGINT = 2

local bench = {}

function bench.done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end

-- Stops this thread and ends the run: wrk's main thread sleeps through --duration before it stops
-- the threads and prints the summary; SIGINT, wrk's Ctrl-C, wakes it now, so the summary's duration
-- is the run's own.
function bench.stop()
  wrk.thread:stop()
  ffi.C.kill(ffi.C.getpid(), SIGINT)
end

return bench
