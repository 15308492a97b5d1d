-- Creates a task; BENCH_BODY is the JSON body, the same one the harness grows the list with.
wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY")
wrk.headers["Content-Type"] = "application/json"
done = require("bench").done
