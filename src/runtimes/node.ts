import { serve } from "@hono/node-server";
import { batchedLogSink } from "../request-log.ts";
import { openNodeSqlite } from "../store/sqlite-node.ts";
import { createServerApp } from "./server.ts";

const logSink = batchedLogSink(console);
const { app, listen } = await createServerApp(process.env, openNodeSqlite, logSink);

const server = serve({ fetch: app.fetch, port: listen.port, hostname: listen.host }, (info) => {
  console.log(`Task list service (Node ${process.version}) listening on http://${listen.host}:${info.port}`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () =>
    server.close(() => {
      logSink.flush();
      process.exit(0);
    }),
  );
}
