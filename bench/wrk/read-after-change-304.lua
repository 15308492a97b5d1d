-- The read after a change of read-after-change.lua, its GET sent with If-None-Match: *, which the
-- service answers with a 304 once it has read the list: the list is read after each change as for
-- any GET (the Durable Object store brings the Worker's copy up to date first), but none of it is
-- sent, so what a pair costs does not include the client's bytes.
GET_HEADERS = { ["If-None-Match"] = "*" }
require("read-after-change")
