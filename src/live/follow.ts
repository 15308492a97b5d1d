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
      // Wait for the subscriber to read, or for more tasks, which may make it one to cut off.
      const either = new AbortController();
      const waiting = AbortSignal.any([signal, either.signal]);
      await Promise.race([sink.drained(waiting), store.nextChange(list.lastId, waiting)]);
      either.abort();
    } else if (cursor >= list.lastId) {
      const quiet = AbortSignal.any([
        signal,
        AbortSignal.timeout(Math.max(KEEP_ALIVE_MS - (Date.now() - lastSent), 0)),
      ]);
      await store.nextChange(cursor, quiet);
      if (!signal.aborted && Date.now() - lastSent >= KEEP_ALIVE_MS) {
        sink.keepAlive();
        lastSent = Date.now();
      }
    }
    if (!signal.aborted) list = await store.read();
  }
}
