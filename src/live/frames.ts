// Each event as a subscriber receives it: a Server-Sent Event, or the text of a WebSocket message.
// A new change goes to every subscriber at once, so its frame is made once and shared.
import type { ListEvent } from "../list/encoded-list.ts";
import { eventText } from "../list/event-text.ts";

const encoder = new TextEncoder();
const EVENT_SUFFIX = encoder.encode("\n\n");
const ID_PREFIX = encoder.encode("id: ");
/** What follows an event's id, up to its data, for each kind of event. */
const KIND_LINES = {
  task: encoder.encode("\nevent: task\ndata: "),
  update: encoder.encode("\nevent: update\ndata: "),
  delete: encoder.encode("\nevent: delete\ndata: "),
} as const;
/** Frames kept for sharing: enough for the changes of a burst; older ones are made again if asked. */
const SHARED_FRAMES = 256;

/** What SSE subscribers get after 15 s without an event, so that proxies keep the connection. */
export const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
/** The SSE event that tells a subscriber to drop what it holds: the whole list follows. It has no id. */
export const RESET_EVENT = encoder.encode("event: reset\ndata: {}\n\n");
/** The SSE event that tells a subscriber its list was deleted; the stream then ends. It has no id. */
export const GONE_EVENT = encoder.encode("event: gone\ndata: {}\n\n");

/** A frame made for one event, and what it was made from, which tells whether an event is the same. */
interface Made<T> {
  readonly event: ListEvent;
  readonly frame: T;
}

/** Frames of the latest changes, so that a change sent to every subscriber is encoded once. */
export class TaskFrames {
  readonly #events = new Map<number, Made<Uint8Array<ArrayBuffer>>>();
  readonly #texts = new Map<number, Made<string>>();

  /** The event as SSE: `id: <change number>`, `event: task|update|delete`, and its JSON as `data`. */
  event(event: ListEvent, share: boolean): Uint8Array<ArrayBuffer> {
    return this.#made(this.#events, event, share, () => {
      const prefix = encoder.encode(`id: ${event.change}\nevent: ${event.event}\ndata: `);
      const frame = new Uint8Array(prefix.byteLength + event.json.byteLength + EVENT_SUFFIX.byteLength);
      frame.set(prefix);
      frame.set(event.json, prefix.byteLength);
      frame.set(EVENT_SUFFIX, prefix.byteLength + event.json.byteLength);
      return frame;
    });
  }

  /**
   * Events as one run of SSE frames, sent in one write. Those of a backlog, which one subscriber
   * reads, are written straight into it; new changes use their shared frames.
   */
  events(events: readonly ListEvent[], share: boolean): Uint8Array<ArrayBuffer> {
    const only = events.length === 1 ? events[0] : undefined;
    if (only !== undefined) return this.event(only, share);
    if (share) return joined(events.map((event) => this.event(event, true)));
    let size = 0;
    for (const event of events) {
      size += ID_PREFIX.byteLength + digits(event.change) + KIND_LINES[event.event].byteLength;
      size += event.json.byteLength + EVENT_SUFFIX.byteLength;
    }
    const run = new Uint8Array(size);
    let at = 0;
    for (const event of events) {
      run.set(ID_PREFIX, at);
      at = writeNumber(run, at + ID_PREFIX.byteLength, event.change);
      const kind = KIND_LINES[event.event];
      run.set(kind, at);
      run.set(event.json, at + kind.byteLength);
      at += kind.byteLength + event.json.byteLength;
      run.set(EVENT_SUFFIX, at);
      at += EVENT_SUFFIX.byteLength;
    }
    return run;
  }

  /** The event as the text of a WebSocket message: `{"id":<change number>,"event":...,"data":...}`. */
  text(event: ListEvent, share: boolean): string {
    return this.#made(this.#texts, event, share, () => eventText(event));
  }

  /** A frame of `event`, the shared one when it was made from the same change, else a new one (kept when `share`). */
  #made<T>(frames: Map<number, Made<T>>, event: ListEvent, share: boolean, make: () => T): T {
    const kept = frames.get(event.change);
    // A list made again (a database's list replaced) reuses change numbers: only the same bytes are the same change.
    if (kept !== undefined && sameEvent(kept.event, event)) return kept.frame;
    const frame = make();
    if (share) {
      frames.set(event.change, { event, frame });
      if (frames.size > SHARED_FRAMES) frames.delete(frames.keys().next().value as number);
    }
    return frame;
  }
}

/** The parts as one array. */
function joined(parts: readonly Uint8Array<ArrayBuffer>[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return all;
}

/** The number of decimal digits of a whole number. */
function digits(value: number): number {
  let count = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) count += 1;
  return count;
}

/** Writes a whole number's decimal digits into `bytes` at `at`; returns where they end. */
function writeNumber(bytes: Uint8Array, at: number, value: number): number {
  const end = at + digits(value);
  let rest = value;
  for (let place = end - 1; place >= at; place--) {
    bytes[place] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return end;
}

/** Whether two events are one: a deletion of the same task, or views of the same bytes of the same buffer. */
function sameEvent(a: ListEvent, b: ListEvent): boolean {
  if (a.event !== b.event || a.id !== b.id) return false;
  if (a.event === "delete") return true;
  return (
    a.json.buffer === b.json.buffer &&
    a.json.byteOffset === b.json.byteOffset &&
    a.json.byteLength === b.json.byteLength
  );
}
