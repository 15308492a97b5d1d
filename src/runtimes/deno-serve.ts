// The entry of `deno serve`: the Deno server's app, handed to Deno's own server, which takes its
// port and host from `--port` and `--host` rather than PORT and HOST.

import { openNodeSqlite } from "../store/sqlite/node-driver.ts";
import { denoLogSink as logSink } from "./deno-log.ts";
import { denoUpgrade } from "./deno-sockets.ts";
import { startServerApp } from "./server.ts";

// Deno copies a byte body into each Response it is given, and takes a string as it is.
const { app, stop } = await startServerApp(Deno.env.toObject(), openNodeSqlite, logSink, (timeRules) => ({
  textBodies: true,
  upgradeWebSocket: denoUpgrade(timeRules.pingIntervalMs),
}));

// `deno serve` keeps its server to itself: a signal ends the subscriptions, writes the log and exits.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await stop(async () => {});
    logSink.flush();
    Deno.exit(0);
  });
}

export default { fetch: app.fetch } satisfies Deno.ServeDefaultExport;
