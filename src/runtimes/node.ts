import { serve } from "@hono/node-server";
import { createApp } from "../app.ts";
import { parseAppConfig, parseListenConfig } from "../config.ts";
import { batchedLogSink } from "../request-log.ts";
import { createServerStore } from "../store/server-store.ts";
import { openNodeSqlite } from "../store/sqlite-node.ts";

const { port, host } = parseListenConfig(process.env);
const config = parseAppConfig(process.env);
const logSink = batchedLogSink(console);
const app = createApp({ store: createServerStore(process.env, openNodeSqlite), config, logSink });

const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
  console.log(`Task list service (Node ${process.version}) listening on http://${host}:${info.port}`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () =>
    server.close(() => {
      logSink.flush();
      process.exit(0);
    }),
  );
}
