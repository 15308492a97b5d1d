// A version's backlog from change 0 is built once for the subscribers catching up on it, sent to
// each as the same bytes, and let go once none is reading it.
import { expect, test } from "vitest";
import { EncodedList } from "../../src/list/encoded-list.ts";
import type { EventBatch } from "../../src/list/list-version.ts";
import { SHARED_LIST_BYTES } from "../../src/list/shared-backlog.ts";
import { encodeTask } from "../../src/list/stored-list.ts";
import { SOCKET_TEXT_FORMAT, SSE_FORMAT } from "../../src/live/frames.ts";

const BATCH_BYTES = 4096;
const decoder = new TextDecoder();

/** A list of `count` tasks, the last third of them edited after they were all made, and one deleted. */
function list(count: number): EncodedList {
  const made = new EncodedList("shared");
  for (let id = 1; id <= count; id++) made.push(encodeTask({ id, title: `Task ${id}`, completed: false }), id);
  for (let id = Math.ceil((count * 2) / 3); id <= count; id++) {
    made.replace(id, encodeTask({ id, title: `Task ${id}, edited`, completed: true }));
  }
  made.remove(2);
  return made;
}

const text = (batches: Iterable<EventBatch>) => [...batches].map((batch) => decoder.decode(batch.bytes)).join("");

test("subscribers catching up from 0 on one version are sent the same batches, built once, with the bytes each would have had alone", () => {
  const version = list(600).read();
  const first = version.eventBatches(0, version.change, SSE_FORMAT, BATCH_BYTES).batches[Symbol.iterator]();
  const firstBatch = first.next().value as EventBatch;
  // A second subscriber comes while the first is on its first batch, and reads on ahead of it.
  const second = [...version.eventBatches(0, version.change, SSE_FORMAT, BATCH_BYTES).batches];
  const rest: EventBatch[] = [];
  for (let next = first.next(); next.done !== true; next = first.next()) rest.push(next.value);
  expect(second.length).toBeGreaterThan(5);
  expect(second.map((batch) => batch.bytes)).toEqual([firstBatch, ...rest].map((batch) => batch.bytes));
  for (const [at, batch] of [firstBatch, ...rest].entries()) expect(second[at]?.bytes).toBe(batch.bytes);
  // One after a reset (a cursor newer than the list) starts from 0 too, and is sent the same.
  const reset = version.eventBatches(version.change + 5, version.change, SSE_FORMAT, BATCH_BYTES);
  expect(reset.reset).toBe(true);
  expect([...reset.batches][0]?.bytes).toBe(firstBatch.bytes);
  // The same list made again, whose backlog nobody shared, is written to the same bytes.
  const alone = list(600).read();
  expect(text(second)).toBe(text(alone.eventBatches(0, alone.change, SSE_FORMAT, BATCH_BYTES).batches));
  expect(text(second)).toContain('id: 1\nevent: task\ndata: {"id":1,"title":"Task 1","completed":false}\n\n');
  expect(text(second)).not.toContain('"id":2,');
});

test("a backlog from a cursor, up to an older change, or in another format is built for its subscriber alone", () => {
  const version = list(300).read();
  const firstOf = (change: number, through: number, format = SSE_FORMAT) =>
    [...version.eventBatches(change, through, format, BATCH_BYTES).batches][0]?.bytes;
  const shared = firstOf(0, version.change);
  expect(firstOf(0, version.change)).toBe(shared);
  for (const other of [
    firstOf(3, version.change),
    firstOf(0, version.change - 1),
    firstOf(0, version.change, SOCKET_TEXT_FORMAT),
  ]) {
    expect(other).toBeDefined();
    expect(other).not.toBe(shared);
  }
  // From a cursor, a task made before it is an update, and a deletion after it is sent.
  const fromCursor = text(version.eventBatches(250, version.change, SSE_FORMAT, BATCH_BYTES).batches);
  expect(fromCursor).toContain('event: delete\ndata: {"id":2}');
  expect(fromCursor).toContain('event: update\ndata: {"id":200,');
});

test("a list of more than 8 MiB builds its backlog for each subscriber, as its size would take the room of two lists", () => {
  const made = new EncodedList("large");
  const title = "x".repeat(100 * 1024);
  for (let id = 1; id <= 82; id++) made.push(encodeTask({ id, title, completed: false }), id);
  const at = (list: EncodedList) => {
    const version = list.read();
    return [0, 1].map((_) => [...version.eventBatches(0, version.change, SSE_FORMAT, BATCH_BYTES).batches][0]?.bytes);
  };
  const [first, second] = at(made);
  expect(made.usage.bytes).toBeGreaterThan(SHARED_LIST_BYTES);
  expect(second).toEqual(first);
  expect(second).not.toBe(first);
  made.remove(82);
  expect(made.usage.bytes).toBeLessThanOrEqual(SHARED_LIST_BYTES);
  const [shared, again] = at(made);
  expect(again).toBe(shared);
});

test("a backlog nobody is reading any more is let go at the next collection", async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("The unit tests run with --expose-gc (vitest.config.ts)");
  const version = list(2000).read();
  let collected = false;
  const registry = new FinalizationRegistry(() => {
    collected = true;
  });
  (() => {
    const batches = [...version.eventBatches(0, version.change, SSE_FORMAT, BATCH_BYTES).batches];
    registry.register(batches[0] as object, "first batch");
  })();
  for (let round = 0; round < 20 && !collected; round++) {
    gc();
    await new Promise((done) => setTimeout(done, 10));
  }
  expect(collected).toBe(true);
  // The version is still read, and builds its backlog again for the next subscriber.
  expect(text(version.eventBatches(0, version.change, SSE_FORMAT, BATCH_BYTES).batches)).toContain("id: 1\n");
});
