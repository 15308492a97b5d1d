// Following the list from a change number: one event per task changed after it, in change order,
// then every later change once, as fast as the subscriber takes them. SSE and WebSocket share it.
import type { ListEvent } from "../list/encoded-list.ts";
import { FOLLOWER_CUT_OFF_BYTES } from "../list/limits.ts";
import type { TaskStore } from "../store/store.ts";

/** Seconds of silence after which an SSE subscriber gets a comment, so that proxies keep it. */
export const KEEP_ALIVE_MS = 15_000;

/** Where a subscriber's events go: an event stream, or a WebSocket. */
export interface Sink {
  /** Whether it holds as much unsent as it should: the feed waits for it to drain before it sends more. */
  full(): boolean;
  /** Resolves once it is no longer full, or when `signal` aborts. */
  drained(signal: AbortSignal): Promise<void>;
  /** Sends one event; `fresh` when its change came after the subscriber, so others get it too. */
  send(event: ListEvent, fresh: boolean): void;
  /** Tells the subscriber to drop what it holds: its cursor cannot be brought up to date, and the whole list follows. */
  reset(): void;
  /** Tells a quiet subscriber the connection is alive. */
  keepAlive(): void;
  /** Ends the subscription of one that stopped reading. */
  cutOff(): void;
}

/**
 * Hands `sink` the events after change `cursor` (a reset and the whole list when the cursor cannot
 * be brought up to date), then each later change, until `signal` aborts or the subscriber is cut
 * off. Rejects when the store fails; the subscriber then comes back with its cursor.
 */
export async function follow(store: TaskStore, cursor: number, sink: Sink, signal: AbortSignal): Promise<void> {
  let list = await store.read();
  // Changes up to here were made before the subscriber came: its backlog, read at its own pace.
  const backlogEnd = list.change;
  let lastSent = Date.now();
  // One timer per subscriber, which sets itself again for 15 s after the last thing sent.
  let keepAlive: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const quiet = Date.now() - lastSent;
    if (quiet >= KEEP_ALIVE_MS) {
      sink.keepAlive();
      lastSent = Date.now();
    }
    keepAlive = setTimeout(tick, KEEP_ALIVE_MS - (quiet >= KEEP_ALIVE_MS ? 0 : quiet));
  };
  keepAlive = setTimeout(tick, KEEP_ALIVE_MS);
  try {
    while (!signal.aborted) {
      const { reset, events } = list.eventsAfter(cursor);
      if (reset) {
        sink.reset();
        cursor = 0;
      }
      for (const event of events) {
        if (sink.full()) break;
        sink.send(event, event.change > backlogEnd);
        cursor = event.change;
        lastSent = Date.now();
      }
      if (sink.full()) {
        if (list.bytesAfterChange(Math.max(cursor, backlogEnd)) > FOLLOWER_CUT_OFF_BYTES) {
          sink.cutOff();
          return;
        }
        await drainedOrChanged(store, sink, list.change, signal);
      } else {
        await store.nextChange(list.change, signal);
      }
      if (!signal.aborted) list = await store.read();
    }
  } finally {
    clearTimeout(keepAlive);
  }
}

/** Waits for a full subscriber to read, or for more changes, which may make it one to cut off. */
async function drainedOrChanged(store: TaskStore, sink: Sink, change: number, signal: AbortSignal): Promise<void> {
  const either = new AbortController();
  const stop = () => either.abort();
  signal.addEventListener("abort", stop, { once: true });
  try {
    await Promise.race([sink.drained(either.signal), store.nextChange(change, either.signal)]);
  } finally {
    either.abort();
    signal.removeEventListener("abort", stop);
  }
}
