// The Deno entry: Deno.serve on PORT and HOST.
import { batchedLogSink } from "../http/request-log.ts";
import { openNodeSqlite } from "../store/sqlite/node-driver.ts";
import { upgradeWebSocket } from "./deno-sockets.ts";
import { createServerApp } from "./server.ts";

const encoder = new TextEncoder();
/** Writes all of `text` and a newline; Deno's `console` costs tens of MiB of heap under load. */
const writeLine = (stream: typeof Deno.stdout) => (text: string) => {
  const bytes = encoder.encode(`${text}\n`);
  for (let written = 0; written < bytes.byteLength; ) written += stream.writeSync(bytes.subarray(written));
};
const logSink = batchedLogSink({ log: writeLine(Deno.stdout), error: writeLine(Deno.stderr) });
// Deno copies a byte body into each Response it is given, and takes a string as it is.
const { app, listen, stop } = await createServerApp(Deno.env.toObject(), openNodeSqlite, logSink, {
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
