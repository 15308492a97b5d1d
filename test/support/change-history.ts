// Random histories of creates, edits and deletes, run against any store, with subscribers coming back from any change number.
import fc from "fast-check";
import { expect } from "vitest";
import type { TaskStore } from "../../src/engine/task-store.ts";
import { eventText } from "../../src/list/event-text.ts";
import type { EventBatch, ListEvent, ListVersion } from "../../src/list/list-version.ts";
import { SOCKET_FRAME_FORMAT, SOCKET_TEXT_FORMAT, SSE_FORMAT } from "../../src/live/frames.ts";
import { checkPages } from "./list-pages.ts";

const decoder = new TextDecoder();
const LIMITS = { maxTasks: 40, maxBytes: 4096, maxKeys: 100 };

/** One step of a random history: a write, or a subscriber coming back from a cursor it once held. */
export type Step =
  | { readonly kind: "create"; readonly title: string; readonly completed: boolean }
  | { readonly kind: "edit"; readonly pick: number; readonly title?: string; readonly completed?: boolean }
  | { readonly kind: "delete"; readonly pick: number }
  | { readonly kind: "resume"; readonly pick: number };

const titleArb = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", "a", "\ud800", "é🚀", "x".repeat(300)));
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), title: titleArb, completed: fc.boolean() }),
  fc.record(
    { kind: fc.constant("edit" as const), pick: fc.nat(), title: titleArb, completed: fc.boolean() },
    { requiredKeys: ["kind", "pick"] },
  ),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("resume" as const), pick: fc.nat() }),
);

/**
 * Random histories of at most `maxLength` steps, of any length up to it: fast-check's default size
 * would keep most of them under ten steps, too few to fill a list, forget deletions and come back.
 */
export function histories(maxLength: number): fc.Arbitrary<Step[]> {
  return fc.array(stepArb, { maxLength, size: "max" });
}

/** What a subscriber holds: the tasks by id, applied from events, and the cursor it would resume from. */
interface Held {
  readonly tasks: Map<number, string>;
  readonly cursor: number;
}

/**
 * Applies the events after `held.cursor` as the contract tells a client to, and returns what it
 * then holds. A `task` event names a task the subscriber cannot hold yet, an `update` one it holds.
 */
function caughtUp(list: ListVersion, held: Held): Held {
  const tasks = new Map(held.tasks);
  let cursor = held.cursor;
  const { reset, events } = list.eventsAfter(cursor);
  // A reset carries no change number: a client that drops what it holds knows nothing, cursor 0, and
  // so is right even when no event follows (an empty list) and the list later passes its old cursor.
  if (reset) {
    tasks.clear();
    cursor = 0;
  }
  const all = [...events];
  checkBatches(list, cursor, all);
  for (const event of all) {
    if (event.event === "delete") tasks.delete(event.id);
    else {
      const holds = tasks.has(event.id) ? "held" : "not held";
      expect(holds, `"${event.event}" event for task ${event.id}`).toBe(event.event === "update" ? "held" : "not held");
      tasks.set(event.id, decoder.decode(event.json));
    }
    cursor = event.change;
  }
  return { tasks, cursor };
}

/**
 * Checks that the same backlog written as bytes, whole or up to a change before its end, in
 * batches of one event or of many, is exactly `events` as SSE, as WebSocket texts, and as frames.
 */
function checkBatches(list: ListVersion, cursor: number, events: readonly ListEvent[]): void {
  for (const through of new Set([list.change, events.at(-2)?.change ?? 0])) {
    const expected = events.filter((event) => event.change <= through);
    for (const batchBytes of [1, 64 * 1024]) {
      const batches = (format: typeof SSE_FORMAT) => [
        ...list.eventBatches(cursor, through, format, batchBytes).batches,
      ];
      const sse = batches(SSE_FORMAT).map((batch) => decoder.decode(batch.bytes));
      expect(sse.join("")).toBe(
        expected.map((e) => `id: ${e.change}\nevent: ${e.event}\ndata: ${decoder.decode(e.json)}\n\n`).join(""),
      );
      expect(batches(SOCKET_TEXT_FORMAT).flatMap(texts)).toEqual(expected.map(eventText));
      expect(batches(SOCKET_FRAME_FORMAT).flatMap(frames)).toEqual(expected.map(eventText));
      if (batchBytes === 1) expect(sse).toHaveLength(expected.length);
    }
  }
}

/** The text of each event of a batch, by its bounds. */
function texts({ bytes, bounds }: EventBatch): string[] {
  return [...bounds.subarray(1)].map((end, i) => decoder.decode(bytes.subarray(bounds[i], end)));
}

/** The text of each WebSocket frame of a batch, checking that each is a whole, unmasked text frame. */
function frames({ bytes }: EventBatch): string[] {
  const found: string[] = [];
  for (let at = 0; at < bytes.byteLength; ) {
    expect(bytes[at], "a final text frame").toBe(0x81);
    const short = bytes[at + 1] ?? 0;
    const view = new DataView(bytes.buffer, bytes.byteOffset + at);
    const [length, header] =
      short < 126 ? [short, 2] : short === 126 ? [view.getUint16(2), 4] : [Number(view.getBigUint64(2)), 10];
    found.push(decoder.decode(bytes.subarray(at + header, at + header + length)));
    at += header + length;
  }
  return found;
}

function wholeList(list: ListVersion): string {
  return list
    .body()
    .parts.map((part) => decoder.decode(part))
    .join("");
}

function heldList(held: Held): string {
  return `[${[...held.tasks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, json]) => json)
    .join(",")}]`;
}

/**
 * Writes `steps` through `writer` and checks, at each resume and at the end, that a subscriber
 * applying the events `reader` serves holds exactly the list, and at the end that each page of it
 * (filtered, limited) is the list's. A `reader` other than `writer` stands for another process or
 * isolate: it reads only when a subscriber comes back, so its copy catches up on many changes at
 * once, and must hold the list the writer holds.
 */
export async function run(writer: TaskStore, steps: readonly Step[], reader: TaskStore = writer): Promise<void> {
  // Every state a subscriber was once in: it may come back from any of them, or from a cursor past the end.
  const seen: Held[] = [{ tasks: new Map(), cursor: 0 }];
  for (const step of steps) {
    const list = (await writer.read()).version;
    const ids = [...list.tasksAfter(0)].map((task) => task.id);
    // Ids never given and ids deleted are picked too.
    const id = (step.kind === "create" ? 0 : step.pick % (list.lastId + 3)) || 1;
    if (step.kind === "create") await writer.append({ title: step.title, completed: step.completed }, LIMITS);
    else if (step.kind === "edit") {
      const { title, completed } = step;
      const result = await writer.update(
        id,
        { ...(title === undefined ? {} : { title }), ...(completed === undefined ? {} : { completed }) },
        LIMITS,
      );
      expect(result.outcome).toEqual(
        ids.includes(id) ? expect.stringMatching(/updated|unchanged|full/) : expect.stringMatching(/gone|not-found/),
      );
    } else if (step.kind === "delete") {
      expect((await writer.remove(id)).outcome).toEqual(
        ids.includes(id) ? "deleted" : expect.stringMatching(/gone|not-found/),
      );
    } else {
      const read = reader === writer ? list : (await reader.read()).version;
      expect({ version: read.version, list: wholeList(read) }).toEqual({
        version: list.version,
        list: wholeList(list),
      });
      const from = step.pick % (seen.length + 1);
      const held = seen[from] ?? { tasks: new Map([[999, "{}"]]), cursor: read.change + 1 + step.pick };
      const now = caughtUp(read, held);
      expect(heldList(now)).toBe(wholeList(read));
      seen.push(now);
    }
  }
  const list = (await reader.read()).version;
  if (reader !== writer) expect(list.version).toBe((await writer.read()).version.version);
  checkPages(list);
  for (const held of seen) expect(heldList(caughtUp(list, held))).toBe(wholeList(list));
}
