// WebSockets on Deno: Hono's Deno upgrade takes `Upgrade: websocket` in lower case only, and
// responds 500 to any other spelling, which RFC 6455 allows; this one takes any, and has Deno ping
// each subscriber.
import { defineWebSocketHelper, type UpgradeWebSocket } from "hono/ws";
import { PING_INTERVAL_S } from "../socket-rules.ts";
import { socketContext } from "./socket-context.ts";

/** Upgrades to a Deno WebSocket; the app has checked the handshake first. */
export const upgradeWebSocket: UpgradeWebSocket<WebSocket> = defineWebSocketHelper<WebSocket>((c, events) => {
  // Deno pings a socket quiet for this long, and closes it if no pong comes within as long again.
  const { response, socket } = Deno.upgradeWebSocket(c.req.raw, { idleTimeout: PING_INTERVAL_S });
  const ws = socketContext(socket, c.req.url);
  socket.onopen = (event) => events.onOpen?.(event, ws);
  socket.onmessage = (event) => events.onMessage?.(event, ws);
  socket.onclose = (event) => events.onClose?.(event, ws);
  socket.onerror = (event) => events.onError?.(event, ws);
  return response;
});
