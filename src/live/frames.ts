// Each task as a subscriber receives it: a Server-Sent Event, or the text of a WebSocket message.
// A new task goes to every subscriber at once, so its frame is made once and shared.
import type { EncodedTask } from "../list/encoded-list.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EVENT_SUFFIX = encoder.encode("\n\n");
/** Frames kept for sharing: enough for the tasks of a burst; older ones are made again if asked. */
const SHARED_FRAMES = 256;

/** What SSE subscribers get after 15 s without an event, so that proxies keep the connection. */
export const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

/** A frame made for one task, and the bytes it was made from, which tell whether a task is the same. */
interface Made<T> {
  readonly json: Uint8Array;
  readonly frame: T;
}

/** Frames of the latest tasks, so that a task sent to every subscriber is encoded once. */
export class TaskFrames {
  readonly #events = new Map<number, Made<Uint8Array<ArrayBuffer>>>();
  readonly #texts = new Map<number, Made<string>>();

  /** The task as an SSE event: `id`, `event: task`, and its JSON as `data`. */
  event(task: EncodedTask, share: boolean): Uint8Array<ArrayBuffer> {
    return this.#made(this.#events, task, share, () => {
      const prefix = encoder.encode(`id: ${task.id}\nevent: task\ndata: `);
      const frame = new Uint8Array(prefix.byteLength + task.json.byteLength + EVENT_SUFFIX.byteLength);
      frame.set(prefix);
      frame.set(task.json, prefix.byteLength);
      frame.set(EVENT_SUFFIX, prefix.byteLength + task.json.byteLength);
      return frame;
    });
  }

  /** The task as the text of a WebSocket message: its JSON. */
  text(task: EncodedTask, share: boolean): string {
    return this.#made(this.#texts, task, share, () => decoder.decode(task.json));
  }

  /** A frame of `task`, the shared one when it was made from the same bytes, else a new one (kept when `share`). */
  #made<T>(frames: Map<number, Made<T>>, task: EncodedTask, share: boolean, make: () => T): T {
    const kept = frames.get(task.id);
    // A list made again (a database's list replaced) reuses ids: only the same bytes are the same task.
    if (kept !== undefined && sameBytes(kept.json, task.json)) return kept.frame;
    const frame = make();
    if (share) {
      frames.set(task.id, { json: task.json, frame });
      if (frames.size > SHARED_FRAMES) frames.delete(frames.keys().next().value as number);
    }
    return frame;
  }
}

/** Whether two views show the same bytes of the same buffer. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset === b.byteOffset && a.byteLength === b.byteLength;
}
