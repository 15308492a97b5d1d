// The plain Hono peer with live changes on Bun. Bun closes a connection after 10 s without a byte
// either way, an idle event stream too, unless told otherwise: a Bun user serving SSE turns that off.
import app from "./app.ts";

Bun.serve({
  fetch: app.fetch,
  port: Number(process.env.PORT ?? 8787),
  hostname: process.env.HOST ?? "127.0.0.1",
  idleTimeout: 0,
});
