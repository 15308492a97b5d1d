// The Bun entry: Bun.serve on PORT and HOST.
import { batchedLogSink } from "../http/request-log.ts";
import { openBunSqlite } from "../store/sqlite/bun-driver.ts";
import { createServerApp } from "./server.ts";

const logSink = batchedLogSink(console);
const { app, listen } = await createServerApp(process.env, openBunSqlite, logSink);

const server = Bun.serve({ port: listen.port, hostname: listen.host, fetch: app.fetch });
console.log(`Task list service (Bun ${Bun.version}) listening on http://${listen.host}:${server.port}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () =>
    server.stop().then(() => {
      logSink.flush();
      process.exit(0);
    }),
  );
}
