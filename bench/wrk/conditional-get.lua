-- A GET that already holds the list's current ETag (BENCH_ETAG), so the server answers 304.
wrk.headers["If-None-Match"] = os.getenv("BENCH_ETAG")
done = require("bench").done
