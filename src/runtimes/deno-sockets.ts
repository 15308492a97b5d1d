// WebSockets on Deno: Hono's Deno upgrade takes `Upgrade: websocket` in lower case only, and
// responds 500 to any other spelling, which RFC 6455 allows; this one takes any, and has Deno ping
// each subscriber.
import { defineWebSocketHelper, type UpgradeWebSocket } from "hono/ws";
import { socketContext } from "./socket-context.ts";

/**
 * Upgrades to a Deno WebSocket pinged after `pingIntervalMs` of quiet (the config's time rules);
 * the app has checked the handshake first.
 */
export const denoUpgrade = (pingIntervalMs: number): UpgradeWebSocket<WebSocket> =>
  defineWebSocketHelper<WebSocket>((c, events) => {
    // Deno pings a socket quiet for this long, and closes it if no pong comes within as long again.
    const { response, socket } = Deno.upgradeWebSocket(c.req.raw, { idleTimeout: pingIntervalMs / 1000 });
    const ws = socketContext(socket, c.req.url);
    socket.onopen = (event) => events.onOpen?.(event, ws);
    socket.onmessage = (event) => events.onMessage?.(event, ws);
    socket.onclose = (event) => events.onClose?.(event, ws);
    socket.onerror = (event) => events.onError?.(event, ws);
    return response;
  });
