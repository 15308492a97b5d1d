// Following the list from a cursor: every task after it, each exactly once and in id order, then
// every task appended later, as fast as the subscriber takes them. SSE and WebSocket share it.
import type { EncodedTask } from "../list/encoded-list.ts";
import { FOLLOWER_CUT_OFF_BYTES } from "../list/limits.ts";
import type { TaskStore } from "../store/store.ts";

/** Seconds of silence after which an SSE subscriber gets a comment, so that proxies keep it. */
export const KEEP_ALIVE_MS = 15_000;

/** Where a subscriber's tasks go: an event stream, or a WebSocket. */
export interface Sink {
  /** Whether it holds as much unsent as it should: the feed waits for it to drain before it sends more. */
  full(): boolean;
  /** Resolves once it is no longer full, or when `signal` aborts. */
  drained(signal: AbortSignal): Promise<void>;
  /** Sends one task; `fresh` when it was appended after the subscriber came, so others get it too. */
  send(task: EncodedTask, fresh: boolean): void;
  /** Tells a quiet subscriber the connection is alive. */
  keepAlive(): void;
  /** Ends the subscription of one that stopped reading. */
  cutOff(): void;
}

/**
 * Hands `sink` the tasks after `cursor`, then each task appended later, until `signal` aborts or
 * the subscriber is cut off. Rejects when the store fails; the subscriber then comes back with its
 * cursor.
 */
export async function follow(store: TaskStore, cursor: number, sink: Sink, signal: AbortSignal): Promise<void> {
  let list = await store.read();
  // Tasks up to here were there when the subscriber came: its backlog, read at its own pace.
  const backlogEnd = list.lastId;
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
      for (const task of list.tasksAfter(cursor)) {
        if (sink.full()) break;
        sink.send(task, task.id > backlogEnd);
        cursor = task.id;
        lastSent = Date.now();
      }
      if (sink.full()) {
        if (list.bytesAfter(Math.max(cursor, backlogEnd)) > FOLLOWER_CUT_OFF_BYTES) {
          sink.cutOff();
          return;
        }
        await drainedOrChanged(store, sink, list.lastId, signal);
      } else {
        await store.nextChange(cursor, signal);
      }
      if (!signal.aborted) list = await store.read();
    }
  } finally {
    clearTimeout(keepAlive);
  }
}

/** Waits for a full subscriber to read, or for more tasks, which may make it one to cut off. */
async function drainedOrChanged(store: TaskStore, sink: Sink, lastId: number, signal: AbortSignal): Promise<void> {
  const either = new AbortController();
  const stop = () => either.abort();
  signal.addEventListener("abort", stop, { once: true });
  try {
    await Promise.race([sink.drained(either.signal), store.nextChange(lastId, either.signal)]);
  } finally {
    either.abort();
    signal.removeEventListener("abort", stop);
  }
}
