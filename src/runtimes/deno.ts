// The Deno entry: Deno.serve on PORT and HOST.
import { upgradeWebSocket } from "hono/deno";
import { openNodeSqlite } from "../store/sqlite/node-driver.ts";
import { denoLogSink as logSink } from "./deno-log.ts";
import { startServerApp } from "./server.ts";

// Deno copies a byte body into each Response it is given, and takes a string as it is.
const { app, listen, stop } = await startServerApp(Deno.env.toObject(), openNodeSqlite, logSink, {
  textBodies: true,
  upgradeWebSocket,
});

const server = Deno.serve(
  {
    port: listen.port,
    hostname: listen.host,
    onListen: ({ port }) =>
      console.log(`Task list service (Deno ${Deno.version.deno}) listening on http://${listen.host}:${port}`),
  },
  app.fetch,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await stop(() => server.shutdown());
    logSink.flush();
    Deno.exit(0);
  });
}
