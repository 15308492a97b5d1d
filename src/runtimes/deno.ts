// The Deno entry: Deno.serve on PORT and HOST.
import { openNodeSqlite } from "../store/sqlite/node-driver.ts";
import { denoLogSink as logSink } from "./deno-log.ts";
import { denoUpgrade } from "./deno-sockets.ts";
import { startServerApp } from "./server.ts";

// Deno copies a byte body into each Response it is given, and takes a string as it is.
const { app, listen, stop } = await startServerApp(Deno.env.toObject(), openNodeSqlite, logSink, (timeRules) => ({
  textBodies: true,
  upgradeWebSocket: denoUpgrade(timeRules.pingIntervalMs),
}));

// Deno's shutdown cuts off a request body still arriving, so a stop first lets the responses in
// flight finish; until then the server still takes connections, and a subscriber gets 503.
const inFlight = new Set<Promise<Response>>();
const handle = (request: Request, info: Deno.ServeHandlerInfo): Response | Promise<Response> => {
  const response = app.fetch(request, info);
  if (response instanceof Promise) {
    inFlight.add(response);
    const settled = () => inFlight.delete(response);
    response.then(settled, settled);
  }
  return response;
};
const server = Deno.serve(
  {
    port: listen.port,
    hostname: listen.host,
    onListen: ({ port }) =>
      console.log(`Task list service (Deno ${Deno.version.deno}) listening on http://${listen.host}:${port}`),
  },
  handle,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await stop(async () => {
      await Promise.allSettled(inFlight);
      await server.shutdown();
    });
    logSink.flush();
    Deno.exit(0);
  });
}
