// The Bun entry: Bun.serve on PORT and HOST.
import { upgradeWebSocket, websocket } from "hono/bun";
import { batchedLogSink } from "../http/request-log.ts";
import { openBunSqlite } from "../store/sqlite/bun-driver.ts";
import { createServerApp } from "./server.ts";

const logSink = batchedLogSink(console);
const { app, listen } = await createServerApp(process.env, openBunSqlite, logSink, { upgradeWebSocket });

const server = Bun.serve({ port: listen.port, hostname: listen.host, fetch: app.fetch, websocket });
console.log(`Task list service (Bun ${Bun.version}) listening on http://${listen.host}:${server.port}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () =>
    server.stop().then(() => {
      logSink.flush();
      process.exit(0);
    }),
  );
}
