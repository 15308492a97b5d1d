// WebSocket subscribers: the list followed from a cursor, one text message per event, on whichever
// runtime's WebSocket Hono's upgrade gives.
import type { WSContext, WSEvents } from "hono/ws";
import { RESET_TEXT } from "../list/event-text.ts";
import type { TaskStore } from "../store/store.ts";
import { follow, type Sink } from "./follow.ts";
import type { TaskFrames } from "./frames.ts";

/** Bytes a socket holds unsent before the feed waits for the subscriber to read. */
const SOCKET_MARK_BYTES = 64 * 1024;
/** How often a full socket is looked at again: WebSockets say how much they hold, not when it drains. */
const DRAIN_POLL_MS = 10;
/** "Try again later": the close code for a subscriber cut off for not reading. */
const TRY_AGAIN_LATER = 1013;
/** "Going away": the close code for subscribers of a server that is stopping. */
const GOING_AWAY = 1001;

/** The socket's own count of bytes sent but not yet written: `bufferedAmount`, or Bun's `getBufferedAmount()`. */
function buffered(ws: WSContext): number {
  const raw = ws.raw as { bufferedAmount?: number; getBufferedAmount?: () => number } | undefined;
  if (typeof raw?.getBufferedAmount === "function") return raw.getBufferedAmount();
  return raw?.bufferedAmount ?? 0;
}

/**
 * The events of a WebSocket that follows the list from `cursor`, until it closes, the store fails,
 * or `closing` aborts (the server is stopping). `leave` is called once when the feed ends.
 */
export function socketFeed(
  store: TaskStore,
  cursor: number,
  frames: TaskFrames,
  closing: AbortSignal | undefined,
  leave: () => void,
): WSEvents {
  const stop = new AbortController();
  let finish: (() => void) | undefined;
  const end = () => {
    // Every subscriber listens to the one closing signal: one that leaves must not stay on it.
    if (finish !== undefined) closing?.removeEventListener("abort", finish);
    stop.abort();
    leave();
  };
  return {
    onOpen(_event, ws) {
      const sink: Sink = {
        full: () => buffered(ws) >= SOCKET_MARK_BYTES,
        drained: (signal) =>
          new Promise((done) => {
            const timer = setInterval(() => {
              if (signal.aborted || buffered(ws) < SOCKET_MARK_BYTES) {
                clearInterval(timer);
                done();
              }
            }, DRAIN_POLL_MS);
          }),
        send: (event, fresh) => ws.send(frames.text(event, fresh)),
        reset: () => ws.send(RESET_TEXT),
        keepAlive: () => {},
        cutOff: () => ws.close(TRY_AGAIN_LATER, "Too far behind: connect again with your cursor"),
      };
      finish = () => {
        end();
        ws.close(GOING_AWAY, "The server is stopping: connect again with your cursor");
      };
      if (closing?.aborted) return finish();
      closing?.addEventListener("abort", finish, { once: true });
      follow(store, cursor, sink, stop.signal).then(end, () => {
        end();
        ws.close(TRY_AGAIN_LATER, "The list cannot be read now: connect again with your cursor");
      });
    },
    onClose: end,
    onError: end,
  };
}
