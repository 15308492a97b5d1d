// WebSocket subscribers: the list followed from a cursor, one text message per event, on whichever
// runtime's WebSocket Hono's upgrade gives.
import type { WSContext, WSEvents } from "hono/ws";
import type { TaskStore } from "../engine/task-store.ts";
import { GONE_TEXT, RESET_TEXT, REVOKED_TEXT } from "../list/event-text.ts";
import { LIST_DELETED, TOO_MANY_SUBSCRIBERS } from "../messages.ts";
import * as rules from "../socket-rules.ts";
import { KEEP_ALIVE_MS } from "../time-rules.ts";
import type { WatchedKey } from "./event-stream.ts";
import { follow, type Sink } from "./follow.ts";
import type { TaskFrames } from "./frames.ts";
import { watchKey } from "./key-watches.ts";
import { batchSending } from "./socket-batches.ts";
import type { Subscribers } from "./subscribers.ts";

/** The socket's own count of bytes sent but not yet written: `bufferedAmount`, or Bun's `getBufferedAmount()`. */
function buffered(ws: WSContext): number {
  const raw = ws.raw as { bufferedAmount?: number; getBufferedAmount?: () => number } | undefined;
  if (typeof raw?.getBufferedAmount === "function") return raw.getBufferedAmount();
  return raw?.bufferedAmount ?? 0;
}

/**
 * The events of a WebSocket that follows the list from `cursor`, until it closes, the store fails,
 * `closing` aborts (the server is stopping), or the `key` it came with is revoked or expires. It
 * takes one of `subscribers`' slots when it opens (or closes with 1013 if none is left) and gives it
 * back when it ends, however it ends.
 */
export function socketFeed(
  store: TaskStore,
  cursor: number,
  frames: TaskFrames,
  closing: AbortSignal | undefined,
  subscribers: Subscribers,
  key?: WatchedKey,
): WSEvents {
  const stop = new AbortController();
  let finish: (() => void) | undefined;
  let leave: (() => void) | undefined;
  let unwatch: (() => void) | undefined;
  const end = () => {
    unwatch?.();
    // Every subscriber listens to the one closing signal: one that leaves must not stay on it.
    if (finish !== undefined) closing?.removeEventListener("abort", finish);
    stop.abort();
    leave?.();
  };
  return {
    onOpen(_event, ws) {
      leave = subscribers.join();
      // Others opened since this one was let in, and took the last slots.
      if (leave === undefined) return ws.close(rules.TRY_AGAIN_LATER, TOO_MANY_SUBSCRIBERS);
      const sink: Sink = {
        full: () => buffered(ws) >= rules.SOCKET_MARK_BYTES,
        drained: (signal) => rules.drained(() => buffered(ws), signal),
        send: (events) => {
          for (const event of events) ws.send(frames.text(event));
        },
        ...batchSending(ws),
        reset: () => ws.send(RESET_TEXT),
        gone: () => {
          ws.send(GONE_TEXT);
          ws.close(rules.NORMAL_CLOSURE, LIST_DELETED);
        },
        keepAlive: () => {},
        cutOff: () => ws.close(rules.TRY_AGAIN_LATER, rules.TOO_FAR_BEHIND),
      };
      finish = () => {
        end();
        ws.close(rules.GOING_AWAY, "The server is stopping: connect again with your cursor");
      };
      if (closing?.aborted) return finish();
      closing?.addEventListener("abort", finish, { once: true });
      if (key !== undefined) {
        unwatch = watchKey(key.rows, key.key, () => {
          end();
          ws.send(REVOKED_TEXT);
          ws.close(rules.POLICY_VIOLATION, rules.KEY_REVOKED);
        });
      }
      // The sink's keep-alive does nothing, whatever its rhythm: the runtime pings a socket.
      follow(store, cursor, sink, stop.signal, KEEP_ALIVE_MS).then(end, () => {
        end();
        ws.close(rules.TRY_AGAIN_LATER, "The list cannot be read now: connect again with your cursor");
      });
    },
    // The service reads no message; where the runtime cannot refuse a big one unread, it is refused here.
    onMessage(event, ws) {
      if (rules.tooBig(event.data)) ws.close(rules.MESSAGE_TOO_BIG, rules.TOO_BIG_REASON);
    },
    onClose: end,
    onError: end,
  };
}
