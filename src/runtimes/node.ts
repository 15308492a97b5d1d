// The Node entry: @hono/node-server on PORT and HOST.

import type { Server } from "node:http";
import { type HttpBindings, serve } from "@hono/node-server";
import { batchedLogSink } from "../http/request-log.ts";
import { openNodeSqlite } from "../store/sqlite/node-driver.ts";
import { scaledMs } from "../time-rules.ts";
import { limitHeadTime } from "./node-head-time.ts";
import { serveSockets, upgradeWebSocket } from "./node-sockets.ts";
import { startServerApp } from "./server.ts";

// Straight to the streams: a batch is one string already, and console would format it again.
const logSink = batchedLogSink({
  log: (text) => process.stdout.write(`${text}\n`),
  error: (text) => process.stderr.write(`${text}\n`),
});
// @hono/node-server sends a text body in the same write as the head, and hands over the headers
// Node parsed as `incoming.headers`.
const { app, listen, timeRules, stop } = await startServerApp(process.env, openNodeSqlite, logSink, {
  textBodies: true,
  parsedHeaders: (c) => (c.env as HttpBindings).incoming.headers,
  upgradeWebSocket,
});

// Node's time limits: a request's head within 30 s of the connection, judged by limitHeadTime once
// the loop has read what came (Node's own check, off here, runs before those reads and answered 408
// to honest heads on a busy machine). Not 10 s: a client on a loaded machine runs late between its
// connection and its head, by over 10 s with two test suites side by side on two cores. An idle
// keep-alive connection is closed 30 s after its response, as on Bun, while clients are told
// `Keep-Alive: timeout=5`: fetch trusts that hint for 3 s, but a busy client runs its timers late and
// reads a large response well after Node wrote it, and must find the connection still open when it
// sends on it. A body that stops arriving is refused by the app after 10 s of silence
// (BODY_SILENCE_MS); an event stream is a response, never cut by these. TIME_SCALE shortens the
// keep-alive ones for the tests, as it does the app's own rules.
const ms = (length: number) => scaledMs(timeRules.scale, length);
const serverOptions = { headersTimeout: 0, keepAliveTimeout: ms(5_000), keepAliveTimeoutBuffer: ms(25_000) };
const server = serve({ fetch: app.fetch, port: listen.port, hostname: listen.host, serverOptions }, (info) => {
  console.log(`Task list service (Node ${process.version}) listening on http://${listen.host}:${info.port}`);
});
serveSockets(server as Server, app.fetch, timeRules.pingIntervalMs);
limitHeadTime(server as Server, 30_000, serverOptions.keepAliveTimeout + serverOptions.keepAliveTimeoutBuffer);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await stop(
      () =>
        new Promise((done) => {
          // Connections whose event streams end as the server stops become idle only after close()
          // has closed the idle ones: they are swept until the server has closed.
          const sweep = setInterval(() => (server as Server).closeIdleConnections(), 50);
          server.close(() => {
            clearInterval(sweep);
            done(undefined);
          });
        }),
    );
    logSink.flush();
    process.exit(0);
  });
}
