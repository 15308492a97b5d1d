// WebSockets on Node: the server's upgrade requests go through the app, and ws takes those it
// accepts; every other response to one, a refusal with its JSON message included, is written whole.
// ws caps what a subscriber may send, and pings each one to find those that vanished.
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { defineWebSocketHelper, type UpgradeWebSocket, WSContext, type WSEvents } from "hono/ws";
import { type WebSocket, WebSocketServer } from "ws";
import { type FrameWriting, WRITE_FRAMES } from "../live/socket-batches.ts";
import { MAX_MESSAGE_BYTES } from "../socket-rules.ts";

/** Where the app's upgrade leaves the events of a socket it accepts, on the env of an upgrade request. */
const ACCEPTED = Symbol("accepted WebSocket");
/** Headers of the app's response that belong to the connection, which this module writes itself. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade"]);

interface UpgradeEnv {
  readonly incoming: IncomingMessage;
  [ACCEPTED]: WSEvents<WebSocket> | undefined;
}

/** Accepts a WebSocket for a request that came through {@link serveSockets}'s upgrade; refuses any other. */
export const upgradeWebSocket: UpgradeWebSocket<WebSocket> = defineWebSocketHelper<WebSocket>((c, events) => {
  const env = c.env as Partial<UpgradeEnv> | undefined;
  // A request that came as an ordinary one (no Connection: upgrade) cannot become a socket.
  if (env === undefined || !(ACCEPTED in env)) return;
  env[ACCEPTED] = events;
  return new Response(null);
});

/**
 * Hands `server`'s upgrade requests to `fetch` (the app), and upgrades those it accepted; pings
 * every socket each `pingIntervalMs` (the config's time rules), and ends those that sent no pong
 * to the last ping.
 */
export function serveSockets(
  server: Server,
  fetch: (request: Request, env: UpgradeEnv) => Response | Promise<Response>,
  pingIntervalMs: number,
): void {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const ponged = new WeakSet<WebSocket>();
  server.on("upgrade", (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    const env: UpgradeEnv = { incoming, [ACCEPTED]: undefined };
    Promise.resolve(fetch(requestOf(incoming), env))
      .then(async (response) => {
        const events = env[ACCEPTED];
        if (events === undefined) return writeResponse(socket, response);
        if (socket.destroyed) return;
        // A handshake ws refuses gets its own 400 and never opens, so it never takes a slot.
        sockets.handleUpgrade(incoming, socket, head, (ws) => {
          ponged.add(ws);
          ws.on("pong", () => ponged.add(ws));
          open(ws, events, incoming, socket);
        });
      })
      .catch(() => socket.destroy());
  });
  const pings = setInterval(() => {
    for (const ws of sockets.clients) {
      if (!ponged.delete(ws)) ws.terminate();
      else ws.ping();
    }
  }, pingIntervalMs);
  pings.unref();
  server.on("close", () => {
    clearInterval(pings);
    sockets.close();
  });
}

/** Runs the app's events on an open socket, which `connection` carries. */
function open(ws: WebSocket, events: WSEvents<WebSocket>, incoming: IncomingMessage, connection: Duplex): void {
  // Frames built whole go to the connection in one write. Without compression ws writes each
  // message at once, so they fall between ws's own, never inside one.
  (ws as FrameWriting)[WRITE_FRAMES] = (frames) => {
    if (ws.readyState === ws.OPEN) connection.write(frames);
  };
  const context = new WSContext<WebSocket>({
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    raw: ws,
    get readyState() {
      return ws.readyState;
    },
    url: `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`,
    protocol: ws.protocol,
  });
  ws.on("message", (data) => events.onMessage?.(new MessageEvent("message", { data: String(data) }), context));
  ws.on("close", (code, reason) =>
    events.onClose?.(new CloseEvent("close", { code, reason: String(reason) }), context),
  );
  ws.on("error", () => events.onError?.(new Event("error"), context));
  events.onOpen?.(new Event("open"), context);
}

/** The upgrade request as the app takes it. */
function requestOf(incoming: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers.append(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return new Request(`http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`, {
    method: incoming.method ?? "GET",
    headers,
  });
}

/** Writes the app's response to an upgrade request it did not accept, body and all, then closes the connection. */
async function writeResponse(socket: Duplex, response: Response): Promise<void> {
  const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`, "Connection: close"];
  response.headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name)) head.push(`${name}: ${value}`);
  });
  const sized = response.headers.has("content-length");
  if (response.body === null && !sized) head.push("Content-Length: 0");
  else if (response.body !== null && !sized) head.push("Transfer-Encoding: chunked");
  const write = (data: string | Uint8Array) =>
    new Promise<void>((done) => (socket.destroyed ? done() : socket.write(data, () => done())));
  await write(`${head.join("\r\n")}\r\n\r\n`);
  const reader = response.body?.getReader();
  if (reader !== undefined) {
    // An event stream (an upgrade to some other protocol, served as an ordinary request) runs until the client goes.
    socket.once("close", () => void reader.cancel().catch(() => {}));
    for (let chunk = await reader.read(); !chunk.done && !socket.destroyed; chunk = await reader.read()) {
      if (chunk.value.byteLength === 0) continue;
      if (sized) await write(chunk.value);
      else
        await write(
          Buffer.concat([Buffer.from(`${chunk.value.byteLength.toString(16)}\r\n`), chunk.value, Buffer.from("\r\n")]),
        );
    }
    if (!sized) await write("0\r\n\r\n");
  }
  socket.end();
}
