// The Node entry: @hono/node-server on PORT and HOST.
import { serve } from "@hono/node-server";
import { batchedLogSink } from "../http/request-log.ts";
import { openNodeSqlite } from "../store/sqlite/node-driver.ts";
import { createServerApp } from "./server.ts";

// Straight to the streams: a batch is one string already, and console would format it again.
const logSink = batchedLogSink({
  log: (text) => process.stdout.write(`${text}\n`),
  error: (text) => process.stderr.write(`${text}\n`),
});
// @hono/node-server sends a text body in the same write as the head.
const { app, listen } = await createServerApp(process.env, openNodeSqlite, logSink, { textBodies: true });

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
