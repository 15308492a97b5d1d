// Server-Sent Events: the list followed from a change number, as a stream of task, update, delete
// and reset events, gone when the list is deleted, and revoked when the key it came with is.
import type { KeyRows, TaskStore } from "../engine/task-store.ts";
import type { ListKey } from "../list/list-keys.ts";
import { follow, type Sink } from "./follow.ts";
import { GONE_EVENT, KEEP_ALIVE, RESET_EVENT, REVOKED_EVENT, SSE_FORMAT, type TaskFrames } from "./frames.ts";
import { watchKey } from "./key-watches.ts";

/** Bytes an event stream holds unsent before it waits for the subscriber to read. */
const STREAM_MARK_BYTES = 64 * 1024;
const encoder = new TextEncoder();
/** Sent at once, so that the headers and a first byte pass any proxy that waits for a body. */
const OPENING = encoder.encode(": following the list\n\n");

/** How a subscription ends besides the store failing: `leave` is called once, whoever ends it. */
export interface Ending {
  /** The client went away: the request's signal, which some runtimes fire before the stream learns it. */
  readonly gone: AbortSignal;
  /** The server is stopping: the stream ends cleanly, and the subscriber comes back with its cursor. */
  readonly closing: AbortSignal | undefined;
  readonly leave: () => void;
  /** The list key the subscriber came with, if one let it in: its revocation or expiry ends the subscription. */
  readonly key?: WatchedKey | undefined;
}

/** A list key a subscription came with, and the keys of its list, where it is looked up again. */
export interface WatchedKey {
  readonly key: ListKey;
  readonly rows: KeyRows;
}

/**
 * The body of an SSE response: the changes after `cursor`, then each new one, as events, until it
 * ends; a comment after each `keepAliveMs` of silence.
 */
export function eventStream(
  store: TaskStore,
  cursor: number,
  frames: TaskFrames,
  { gone, closing, leave, key }: Ending,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  let drain: (() => void) | undefined;
  let finish: (() => void) | undefined;
  let unwatch: (() => void) | undefined;
  const end = () => {
    unwatch?.();
    gone.removeEventListener("abort", end);
    // Every subscriber listens to the one closing signal: one that leaves must not stay on it.
    if (finish !== undefined) closing?.removeEventListener("abort", finish);
    stop.abort();
    drain?.();
    leave();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        gone.addEventListener("abort", end, { once: true });
        finish = () => {
          end();
          // What was sent still reaches the subscriber; then its stream ends as a finished one.
          controller.close();
        };
        closing?.addEventListener("abort", finish, { once: true });
        if (key !== undefined) {
          unwatch = watchKey(key.rows, key.key, () => {
            end();
            controller.enqueue(REVOKED_EVENT);
            controller.close();
          });
        }
        controller.enqueue(OPENING);
        const sink: Sink = {
          full: () => (controller.desiredSize ?? 0) <= 0,
          drained: (signal) =>
            new Promise((done) => {
              drain = done;
              signal.addEventListener("abort", () => done(), { once: true });
            }),
          send: (events) => controller.enqueue(frames.events(events)),
          format: SSE_FORMAT,
          write: (batch) => controller.enqueue(batch.bytes),
          reset: () => controller.enqueue(RESET_EVENT),
          gone: () => {
            controller.enqueue(GONE_EVENT);
            controller.close();
          },
          keepAlive: () => controller.enqueue(KEEP_ALIVE),
          cutOff: () => controller.error(new Error("The subscriber stopped reading")),
        };
        follow(store, cursor, sink, stop.signal, keepAliveMs).then(
          () => end(),
          (error: unknown) => {
            end();
            controller.error(error);
          },
        );
      },
      pull() {
        const waiting = drain;
        drain = undefined;
        waiting?.();
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: STREAM_MARK_BYTES, size: (chunk) => chunk?.byteLength ?? 0 },
  );
}
