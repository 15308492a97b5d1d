// WebSockets on Workers: Hono's Workers adapter never calls onOpen, and a subscriber's feed starts
// there, so the pair is made and accepted here, inside the subscriber's own request.
import { defineWebSocketHelper, type UpgradeWebSocket } from "hono/ws";
import { socketContext } from "./socket-context.ts";

/** Responds to an upgrade with the client end of a new pair, and runs `events` on the server end. */
export const upgradeWebSocket: UpgradeWebSocket<WebSocket> = defineWebSocketHelper<WebSocket>((c, events) => {
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") return;
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.accept();
  const ws = socketContext(server, c.req.url);
  // workerd gathers a message whole (up to its own cap) before the feed sees it and refuses it.
  server.addEventListener("message", (event) => events.onMessage?.(event, ws));
  server.addEventListener("close", (event) => events.onClose?.(event, ws));
  server.addEventListener("error", (event) => events.onError?.(event, ws));
  events.onOpen?.(new Event("open"), ws);
  return new Response(null, { status: 101, webSocket: client });
});
