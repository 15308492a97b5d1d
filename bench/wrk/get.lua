-- A plain GET of the list, with BENCH_AUTHORIZATION as its Authorization header when set.
done = require("bench").done

local authorization = os.getenv("BENCH_AUTHORIZATION")
if authorization ~= nil and authorization ~= "" then
  wrk.headers["Authorization"] = authorization
end
