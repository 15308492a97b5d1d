// Following the list from a change number: one event per task changed after it, in change order,
// then every later change once, as fast as the subscriber takes them. SSE and WebSocket share it.
import type { ListRead, TaskStore } from "../engine/task-store.ts";
import { FOLLOWER_CUT_OFF_BYTES } from "../list/limits.ts";
import type { EventBatch, EventFormat, ListEvent, ListVersion } from "../list/list-version.ts";

/** Bytes of events handed to a subscriber at once: many events to a write, and a turn for others between writes. */
const BATCH_BYTES = 64 * 1024;

/** Where a subscriber's events go: an event stream, or a WebSocket. */
export interface Sink {
  /** Whether it holds as much unsent as it should: the feed waits for it to drain before it sends more. */
  full(): boolean;
  /** Resolves once it is no longer full, or when `signal` aborts. */
  drained(signal: AbortSignal): Promise<void>;
  /** Sends new changes in change order, at once: every subscriber gets them, so their frames are shared. */
  send(events: readonly ListEvent[]): void;
  /** How it takes a backlog's events, written as bytes. */
  readonly format: EventFormat;
  /** Sends a batch of a backlog's events, written in its format, at once. */
  write(batch: EventBatch): void;
  /** Tells the subscriber to drop what it holds: its cursor cannot be brought up to date, and the whole list follows. */
  reset(): void;
  /** Tells the subscriber its list was deleted, and ends the subscription. */
  gone(): void;
  /** Tells a quiet subscriber the connection is alive. */
  keepAlive(): void;
  /** Ends the subscription of one that stopped reading. */
  cutOff(): void;
}

/**
 * Hands `sink` the events after change `cursor` (a reset and the whole list when the cursor cannot
 * be brought up to date), then every later change, each once, until `signal` aborts, the
 * subscriber is cut off or the list is deleted (`sink.gone()`); `keepAliveMs` of silence get it a keep-alive. Rejects when the store fails;
 * the subscriber then comes back with its cursor.
 */
export async function follow(
  store: TaskStore,
  cursor: number,
  sink: Sink,
  signal: AbortSignal,
  keepAliveMs: number,
): Promise<void> {
  let read = await store.read();
  if (deleted(read)) {
    sink.gone();
    return;
  }
  let list = read.version;
  // Changes up to here were made before the subscriber came: its backlog, read at its own pace,
  // one event per task. Every change after it is sent as it was made.
  let backlogEnd = list.change;
  let catchingUp = true;
  // Where the backlog goes on after a wait, while the list is still the version it was read from:
  // a backlog from 0 is read where others may be reading it too (shared-backlog.ts).
  let backlog: { version: string; batches: Iterator<EventBatch> } | undefined;
  let lastSent = Date.now();
  // One timer per subscriber, which sets itself again for `keepAliveMs` after the last thing sent.
  let keepAlive: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const quiet = Date.now() - lastSent;
    if (quiet >= keepAliveMs) {
      sink.keepAlive();
      lastSent = Date.now();
    }
    keepAlive = setTimeout(tick, keepAliveMs - (quiet >= keepAliveMs ? 0 : quiet));
  };
  keepAlive = setTimeout(tick, keepAliveMs);
  const sent = (change: number) => {
    cursor = change;
    lastSent = Date.now();
  };
  try {
    while (!signal.aborted) {
      let done: boolean;
      if (catchingUp) {
        if (backlog?.version !== list.version) {
          const { reset, batches } = list.eventBatches(cursor, backlogEnd, sink.format, BATCH_BYTES);
          if (reset) {
            sink.reset();
            cursor = 0;
          }
          backlog = { version: list.version, batches: batches[Symbol.iterator]() };
        }
        done = await writeAll(sink, backlog.batches, sent, signal);
        if (done) {
          // A task of the backlog changed since is sent with its change, next.
          cursor = Math.max(cursor, backlogEnd);
          catchingUp = false;
          backlog = undefined;
        }
      } else {
        const changes = list.changesAfter(cursor);
        if (changes === undefined && !sink.full()) {
          // Fallen behind the changes the list keeps, yet reading: brought up to date once more, one
          // event per task. One that does not read is cut off below, as more than a MiB waits for it.
          backlogEnd = list.change;
          catchingUp = true;
          continue;
        }
        done = changes !== undefined && (await sendAll(sink, changes, list.change, sent, signal));
      }
      if (signal.aborted) return;
      if (sink.full()) {
        if (list.bytesChangedAfter(Math.max(cursor, backlogEnd)) > FOLLOWER_CUT_OFF_BYTES) {
          sink.cutOff();
          return;
        }
        await drainedOrBehind(store, sink, list, Math.max(cursor, backlogEnd), signal);
      } else if (done) {
        await store.nextChange(list.change, signal);
      }
      if (signal.aborted) return;
      read = await store.read();
      if (deleted(read)) {
        sink.gone();
        return;
      }
      list = read.version;
    }
  } finally {
    clearTimeout(keepAlive);
  }
}

/**
 * Writes a backlog's batches, letting other requests run between them. True when all were
 * written; false when the sink filled or `signal` aborted first, with the rest left in `batches`.
 */
async function writeAll(
  sink: Sink,
  batches: Iterator<EventBatch>,
  sent: (change: number) => void,
  signal: AbortSignal,
): Promise<boolean> {
  if (sink.full()) return false;
  // Each full batch is followed by a turn for others. A short one is the last (or makes way for an
  // event too big for it): after the last, the feed waits for changes at once, so it misses none.
  // The batches are not let go when the sink fills: the feed goes on with them once it drains.
  for (let next = batches.next(); next.done !== true; next = batches.next()) {
    const batch = next.value;
    sink.write(batch);
    sent(batch.last);
    if (sink.full()) return false;
    if (batch.bytes.byteLength < BATCH_BYTES) continue;
    await otherTurns();
    if (signal.aborted) return false;
  }
  return true;
}

/**
 * Sends new changes up to change `through` in batches of about {@link BATCH_BYTES}, letting other
 * requests run between batches. True when all were sent; false when the sink filled or `signal` aborted first.
 */
async function sendAll(
  sink: Sink,
  events: Iterable<ListEvent>,
  through: number,
  sent: (change: number) => void,
  signal: AbortSignal,
): Promise<boolean> {
  if (sink.full()) return false;
  let batch: ListEvent[] = [];
  let bytes = 0;
  for (const event of events) {
    if (event.change > through) break;
    batch.push(event);
    bytes += event.json.byteLength;
    if (bytes < BATCH_BYTES) continue;
    sink.send(batch);
    sent(event.change);
    batch = [];
    bytes = 0;
    if (sink.full()) return false;
    await otherTurns();
    if (signal.aborted) return false;
  }
  const last = batch.at(-1);
  if (last !== undefined) {
    sink.send(batch);
    sent(last.change);
  }
  return true;
}

/** Whether a read says the list no longer exists: a deletion wakes every reader, which then reads this. */
function deleted(read: ListRead): boolean {
  return read.list !== undefined && read.list.state !== "live";
}

/**
 * Why a wait's other half is let go: an abort given no reason makes a DOMException, with its
 * stack, which a subscriber catching up paid once a batch.
 */
const SETTLED = "settled";

/** Lets whatever else waits to run have its turn. */
function otherTurns(): Promise<void> {
  return new Promise((done) => setTimeout(done, 0));
}

/**
 * Waits for a full subscriber to read, or for enough changes after `from` to make it one to cut
 * off: it is not woken by each change on the way, so a write costs the same however many
 * subscribers stopped.
 */
async function drainedOrBehind(
  store: TaskStore,
  sink: Sink,
  list: ListVersion,
  from: number,
  signal: AbortSignal,
): Promise<void> {
  const either = new AbortController();
  const stop = () => either.abort(SETTLED);
  signal.addEventListener("abort", stop, { once: true });
  const cutOffAt = list.changedBytes - list.bytesChangedAfter(from) + FOLLOWER_CUT_OFF_BYTES;
  try {
    await Promise.race([sink.drained(either.signal), store.nextChange(list.change, either.signal, cutOffAt)]);
  } finally {
    either.abort(SETTLED);
    signal.removeEventListener("abort", stop);
  }
}
