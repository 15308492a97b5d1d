import { createApp } from "../app.ts";
import { parseAppConfig, parseListenConfig } from "../config.ts";
import { batchedLogSink } from "../request-log.ts";
import { createServerStore } from "../store/server-store.ts";
import { openBunSqlite } from "../store/sqlite-bun.ts";

const { port, host } = parseListenConfig(process.env);
const config = parseAppConfig(process.env);
const logSink = batchedLogSink(console);
const app = createApp({ store: createServerStore(process.env, openBunSqlite), config, logSink });

const server = Bun.serve({ port, hostname: host, fetch: app.fetch });
console.log(`Task list service (Bun ${Bun.version}) listening on http://${host}:${server.port}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () =>
    server.stop().then(() => {
      logSink.flush();
      process.exit(0);
    }),
  );
}
