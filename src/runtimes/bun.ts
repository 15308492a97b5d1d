// The Bun entry: Bun.serve on PORT and HOST.
import { upgradeWebSocket, websocket } from "hono/bun";
import { batchedLogSink } from "../http/request-log.ts";
import { openBunSqlite } from "../store/sqlite/bun-driver.ts";
import { startServerApp } from "./server.ts";

const logSink = batchedLogSink(console);
const { app, listen, stop } = await startServerApp(process.env, openBunSqlite, logSink, { upgradeWebSocket });

// Bun closes a connection after 10 s without a byte by default, before an event stream's 15 s
// keep-alive comment: twice that keeps quiet streams and still drops dead connections.
const server = Bun.serve({ port: listen.port, hostname: listen.host, fetch: app.fetch, websocket, idleTimeout: 30 });
console.log(`Task list service (Bun ${Bun.version}) listening on http://${listen.host}:${server.port}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await stop(() => server.stop());
    logSink.flush();
    process.exit(0);
  });
}
