// Each event as a subscriber receives it: a Server-Sent Event, or the text of a WebSocket message.
// A new change goes to every subscriber at once, so its frame is made once and shared.
import { eventText } from "../list/event-text.ts";
import type { EventFormat, ListEvent } from "../list/list-version.ts";

const encoder = new TextEncoder();
const KINDS = ["task", "update", "delete"] as const;

/** SSE: `id: <change number>`, `event: task|update|delete`, and the task's JSON as `data`. */
export const SSE_FORMAT: EventFormat = {
  head: encoder.encode("id: "),
  kinds: kindBytes((kind) => `\nevent: ${kind}\ndata: `),
  tail: encoder.encode("\n\n"),
  framed: false,
};
/** The text of a WebSocket message: `{"id":<change number>,"event":...,"data":...}`, as {@link eventText} makes it. */
export const SOCKET_TEXT_FORMAT: EventFormat = {
  head: encoder.encode('{"id":'),
  kinds: kindBytes((kind) => `,"event":"${kind}","data":`),
  tail: encoder.encode("}"),
  framed: false,
};
/** The same messages, each a whole WebSocket frame, for a runtime that takes frames as bytes. */
export const SOCKET_FRAME_FORMAT: EventFormat = { ...SOCKET_TEXT_FORMAT, framed: true };
/** Frames kept for sharing: enough for the changes of a burst; older ones are made again if asked. */
const SHARED_FRAMES = 256;

/** What SSE subscribers get after 15 s without an event, so that proxies keep the connection. */
export const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
/** The SSE event that tells a subscriber to drop what it holds: the whole list follows. It has no id. */
export const RESET_EVENT = encoder.encode("event: reset\ndata: {}\n\n");
/** The SSE event that tells a subscriber its list was deleted; the stream then ends. It has no id. */
export const GONE_EVENT = encoder.encode("event: gone\ndata: {}\n\n");
/** The SSE event that tells a subscriber the key it came with was revoked or expired; the stream then ends. */
export const REVOKED_EVENT = encoder.encode("event: revoked\ndata: {}\n\n");

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
  event(event: ListEvent): Uint8Array<ArrayBuffer> {
    return this.#made(this.#events, event, () => {
      const prefix = encoder.encode(`id: ${event.change}\nevent: ${event.event}\ndata: `);
      const frame = new Uint8Array(prefix.byteLength + event.json.byteLength + SSE_FORMAT.tail.byteLength);
      frame.set(prefix);
      frame.set(event.json, prefix.byteLength);
      frame.set(SSE_FORMAT.tail, prefix.byteLength + event.json.byteLength);
      return frame;
    });
  }

  /** New changes as one run of SSE frames, each the shared frame of its change, sent in one write. */
  events(events: readonly ListEvent[]): Uint8Array<ArrayBuffer> {
    const only = events.length === 1 ? events[0] : undefined;
    if (only !== undefined) return this.event(only);
    return joined(events.map((event) => this.event(event)));
  }

  /** The event as the text of a WebSocket message: `{"id":<change number>,"event":...,"data":...}`. */
  text(event: ListEvent): string {
    return this.#made(this.#texts, event, () => eventText(event));
  }

  /** A frame of `event`: the shared one when it was made from the same change, else a new one, kept. */
  #made<T>(frames: Map<number, Made<T>>, event: ListEvent, make: () => T): T {
    const kept = frames.get(event.change);
    // A list made again (a database's list replaced) reuses change numbers: only the same bytes are the same change.
    if (kept !== undefined && sameEvent(kept.event, event)) return kept.frame;
    const frame = make();
    frames.set(event.change, { event, frame });
    if (frames.size > SHARED_FRAMES) frames.delete(frames.keys().next().value as number);
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

function kindBytes(line: (kind: ListEvent["event"]) => string): Record<ListEvent["event"], Uint8Array> {
  return Object.fromEntries(KINDS.map((kind) => [kind, encoder.encode(line(kind))])) as Record<
    ListEvent["event"],
    Uint8Array
  >;
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
