import { expect, test } from "vitest";
import { MAX_EDITS } from "../../src/list/chunk-edits.ts";
import { EncodedList } from "../../src/list/encoded-list.ts";
import type { ListVersion } from "../../src/list/list-version.ts";
import { encodeTask } from "../../src/list/stored-list.ts";
import type { Task } from "../../src/list/task.ts";
import { joinParts } from "./helpers.ts";

const decoder = new TextDecoder();
const task = (id: number, title: string, completed = id % 3 === 0): Task => ({ id, title, completed });

/** What a version said when it was taken, and must say ever after. */
interface Seen {
  readonly version: ListVersion;
  readonly tasks: readonly Task[];
}

/** Checks that `seen.version` still reads as the list it was: its JSON, pages, tasks, their ETags, and its events. */
function expectUnchanged({ version, tasks }: Seen, etags: ReadonlyMap<number, string>): void {
  // One task, and events, are read through the edits a version kept; its JSON as a whole is copied with them.
  for (const t of tasks.filter((t) => t.id < 50 || t.id % 7 === 0)) {
    const read = version.task(t.id);
    expect(read.outcome === "found" && decoder.decode(read.json)).toBe(JSON.stringify(t));
    expect(read.outcome === "found" && read.version).toBe(etags.get(t.id));
  }
  const fromEvents = [...version.eventsAfter(0).events].map((event) => decoder.decode(event.json)).sort();
  expect(fromEvents).toEqual(tasks.map((t) => JSON.stringify(t)).sort());
  expect(decoder.decode(joinParts(version.body()))).toBe(JSON.stringify(tasks));
  expect(version.usage.tasks).toBe(tasks.length);
  const done = tasks.filter((t) => t.completed);
  expect(decoder.decode(joinParts(version.page({ after: 0, completed: true }).body))).toBe(JSON.stringify(done));
  const middle = tasks[tasks.length >> 1];
  if (middle !== undefined) {
    const after = tasks.filter((t) => t.id > middle.id);
    expect(decoder.decode(joinParts(version.after(middle.id)))).toBe(JSON.stringify(after));
  }
}

test("edits kept beside a chunk's bytes never change a version handed out, read whole or task by task, across copies of the chunk", () => {
  const list = new EncodedList("a");
  const model = new Map<number, Task>();
  for (let id = 1; id <= 600; id++) {
    const t = task(id, `task number ${id}`);
    list.push(encodeTask(t), t.id);
    model.set(id, t);
  }
  let seed = 11;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  const seen: { seen: Seen; etags: Map<number, string> }[] = [];
  // Edits crowd a few ids, past MAX_EDITS per chunk, so that chunks are copied with their edits
  // while older versions still read through theirs; tasks are also added and deleted meanwhile.
  const crowded = [1, 2, 3, 40, 41, 42, 300, 600];
  for (let step = 0; step < MAX_EDITS * 3; step++) {
    const pick = next() % 10;
    const ids = [...model.keys()];
    const id = pick < 6 ? (crowded[next() % crowded.length] ?? 1) : (ids[next() % ids.length] ?? 1);
    const held = model.get(id);
    if (pick === 9) {
      const added = task(list.highestId + 1, `added at ${step}`);
      list.push(encodeTask(added), added.id);
      model.set(added.id, added);
    } else if (pick === 8 && held !== undefined) {
      expect(list.remove(id)).toBe(true);
      model.delete(id);
    } else if (held !== undefined) {
      const edited = task(id, `${"é".repeat(step % 5)}edit ${step} of ${id}`, next() % 2 === 0);
      expect(list.replace(id, encodeTask(edited))).toBe(true);
      model.set(id, edited);
    }
    const version = list.read();
    // Some versions are read whole at once, which copies their chunks; others only later.
    if (step % 3 === 0) version.body();
    const tasks = [...model.values()].sort((a, b) => a.id - b.id);
    const etags = new Map<number, string>();
    for (const t of tasks) {
      const read = version.task(t.id);
      if (read.outcome === "found") etags.set(t.id, read.version);
    }
    seen.push({ seen: { version, tasks }, etags });
  }
  for (const { seen: one, etags } of seen) expectUnchanged(one, etags);
});

test("an edit's new ETag and JSON are read from the version that made it, not from the one before", () => {
  const list = new EncodedList("a", [task(1, "one"), task(2, "two")]);
  const before = list.read();
  const edited = task(2, "two, edited", true);
  expect(list.replace(2, encodeTask(edited))).toBe(true);
  const after = list.read();
  const read = (version: ListVersion) => version.task(2);
  expect(read(before)).toMatchObject({ outcome: "found", version: "a-2-2" });
  expect(read(after)).toMatchObject({ outcome: "found", version: "a-2-3" });
  const json = (version: ListVersion) => {
    const found = read(version);
    return found.outcome === "found" ? decoder.decode(found.json) : "";
  };
  expect(json(after)).toBe(JSON.stringify(edited));
  expect(json(before)).toBe(JSON.stringify(task(2, "two")));
  expect(decoder.decode(joinParts(after.page({ after: 0, completed: true }).body))).toBe(JSON.stringify([edited]));
  expect(decoder.decode(joinParts(before.page({ after: 0, completed: true }).body))).toBe("[]");
});
