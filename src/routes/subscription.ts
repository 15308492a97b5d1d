// Admitting a subscriber to /tasks/events: an event stream, or a WebSocket once its handshake is
// sound. A subscriber takes a slot only once it really follows the list, and gives it back
// however it ends.
import type { Context } from "hono";
import type { UpgradeWebSocket } from "hono/ws";
import type { TaskStore } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { type AppEnv, type AppHandler, respond } from "../http/request-context.ts";
import { DEFAULT_LIST } from "../list/list-names.ts";
import { parseCursor } from "../live/cursor.ts";
import { eventStream } from "../live/event-stream.ts";
import { TaskFrames } from "../live/frames.ts";
import { socketFeed } from "../live/socket-feed.ts";
import { Subscribers } from "../live/subscribers.ts";
import { badHandshake, HANDSHAKE_REFUSED, STOPPING, TOO_MANY_SUBSCRIBERS } from "../messages.ts";
import { type ListScope, requireList } from "./list-scope.ts";

/** A Sec-WebSocket-Key: 16 bytes in base64. */
const SOCKET_KEY = /^[A-Za-z0-9+/]{21}[AQgw]==$/;
/** Sec-WebSocket-Protocol: a comma-separated list of HTTP tokens. */
const PROTOCOLS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*,[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/;

/** What the events route is built from; see the options of the same names in `createApp`. */
export interface SubscriptionOptions {
  readonly maxSubscribers: number;
  /** Silence after which a subscriber gets a keep-alive comment (the config's time rules). */
  readonly keepAliveMs: number;
  readonly closing: AbortSignal | undefined;
  readonly upgradeWebSocket: UpgradeWebSocket | undefined;
  readonly openSocket:
    | ((request: Request, cursor: number, list: string, keyHash?: string) => Response | Promise<Response>)
    | undefined;
}

/**
 * The handlers of `GET /tasks/events`, one per list scope, sharing one count of subscribers: the
 * stream's headers for HEAD, else a subscription. A named list that does not exist answers 404 or
 * 410 first.
 */
export function subscription({
  maxSubscribers,
  keepAliveMs,
  closing,
  upgradeWebSocket,
  openSocket,
}: SubscriptionOptions): (scope: ListScope) => AppHandler {
  const frames = new TaskFrames();
  const subscribers = new Subscribers(maxSubscribers);
  return (scope) => (c) => {
    const store = scope.storeOf(c);
    if (!scope.named) return subscribe(c, store);
    const read = store.read();
    if (!(read instanceof Promise)) {
      requireList(read);
      return subscribe(c, store);
    }
    return read.then((done) => {
      requireList(done);
      return subscribe(c, store);
    });
  };

  function subscribe(c: Context<AppEnv>, store: TaskStore): Response | Promise<Response> {
    // A browser's EventSource sends Last-Event-ID when it comes back; a first visit may say `after`.
    // Both are checked whenever they are sent, though Last-Event-ID wins.
    const lastEventId = parseCursor(c.req.header("Last-Event-ID"), "Last-Event-ID", "change number");
    const after = parseCursor(c.req.query("after"), "after", "change number");
    const cursor = lastEventId ?? after ?? 0;
    const headers = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" };
    if (c.req.method === "HEAD") return respond(c, 200, null, headers);
    if (closing?.aborted) throw apiError(503, STOPPING);
    const given = c.get("requestState").key;
    const key = given === undefined ? undefined : { key: given, rows: store.keys };
    const socket = wantsSocket(c) && (openSocket !== undefined || upgradeWebSocket !== undefined);
    if (socket) checkHandshake(c);
    if (socket && openSocket !== undefined) {
      return openSocket(c.req.raw, cursor, c.get("requestState").list ?? DEFAULT_LIST, given?.hash);
    }
    if (socket && upgradeWebSocket !== undefined) {
      // Refused now while every slot is taken; the slot itself is taken once the socket opens.
      if (subscribers.full) throw apiError(503, TOO_MANY_SUBSCRIBERS);
      return upgradeWebSocket(c, socketFeed(store, cursor, frames, closing, subscribers, key)).catch(() => {
        throw apiError(400, HANDSHAKE_REFUSED);
      });
    }
    const leave = subscribers.join();
    if (leave === undefined) throw apiError(503, TOO_MANY_SUBSCRIBERS);
    return respond(
      c,
      200,
      eventStream(store, cursor, frames, { gone: c.req.raw.signal, closing, leave, key }, keepAliveMs),
      headers,
      null,
    );
  }
}

/** Whether the request asks for a WebSocket: `Upgrade` names it, in any case (RFC 6455). */
function wantsSocket(c: Context<AppEnv>): boolean {
  return hasToken(c.req.header("Upgrade"), "websocket");
}

/**
 * Refuses with 400 a WebSocket handshake that RFC 6455 would not accept, before any runtime sees
 * it: runtimes respond to such handshakes each their own way, some with a 500 and no message.
 */
function checkHandshake(c: Context<AppEnv>): void {
  if (!hasToken(c.req.header("Connection"), "upgrade")) throw apiError(400, badHandshake("Connection"));
  if (c.req.header("Sec-WebSocket-Version")?.trim() !== "13") {
    throw apiError(400, badHandshake("Sec-WebSocket-Version"));
  }
  if (!SOCKET_KEY.test(c.req.header("Sec-WebSocket-Key")?.trim() ?? "")) {
    throw apiError(400, badHandshake("Sec-WebSocket-Key"));
  }
  const protocols = c.req.header("Sec-WebSocket-Protocol");
  if (protocols !== undefined && !PROTOCOLS.test(protocols.trim())) {
    throw apiError(400, badHandshake("Sec-WebSocket-Protocol"));
  }
}

/** Whether a comma-separated header value holds `token`, in any case. */
function hasToken(value: string | undefined, token: string): boolean {
  return value?.split(",").some((part) => part.trim().toLowerCase() === token) ?? false;
}
