// The Bun entry: Bun.serve on PORT and HOST.
import { websocket as honoSockets, upgradeWebSocket } from "hono/bun";
import { batchedLogSink } from "../http/request-log.ts";
import { MAX_MESSAGE_BYTES } from "../socket-rules.ts";
import { openBunSqlite } from "../store/sqlite/bun-driver.ts";
import { wholeSeconds } from "../time-rules.ts";
import { startServerApp } from "./server.ts";

const logSink = batchedLogSink(console);
const { app, listen, timeRules, stop } = await startServerApp(process.env, openBunSqlite, logSink, {
  upgradeWebSocket,
});

// A subscriber's message past the cap closes its socket with 1009 unread. Bun pings a socket that
// has sent nothing for a while before its idleTimeout, and closes it if nothing (a pong) comes.
// Bun's time limits are whole seconds: TIME_SCALE shortens this one to one at least.
const websocket = {
  ...honoSockets,
  maxPayloadLength: MAX_MESSAGE_BYTES,
  idleTimeout: wholeSeconds(2 * timeRules.pingIntervalMs),
  sendPings: true,
};
// Bun closes a connection after 10 s without a byte by default, before an event stream's 15 s
// keep-alive comment: twice that keeps quiet streams and still drops dead connections. Bun's timers
// tick every 4 s, and a limit of one tick may fire just after a comment: TIME_SCALE takes it to 8 s
// at the least.
const idleTimeout = Math.max(8, Math.round(30 * timeRules.scale));
const server = Bun.serve({ port: listen.port, hostname: listen.host, fetch: app.fetch, websocket, idleTimeout });
console.log(`Task list service (Bun ${Bun.version}) listening on http://${listen.host}:${server.port}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await stop(() => server.stop());
    logSink.flush();
    process.exit(0);
  });
}
