// The engine of a list held in this process: a write is persisted, then applied, then its readers
// woken; a write the store cannot persist changes nothing; a deleted list's readers are woken for good.
import { expect, test } from "vitest";
import { HeldListStore } from "../../src/engine/held-store.ts";
import { EncodedList } from "../../src/list/encoded-list.ts";
import { HeldList } from "../../src/list/held-list.ts";
import { INITIAL_TASKS } from "../../src/list/task.ts";

const LIMITS = { maxTasks: 100, maxBytes: 1024 * 1024, maxKeys: 100 };

/** Whether `waiting` has settled after the loop's pending work ran. */
async function settled(waiting: Promise<void>): Promise<boolean> {
  let done = false;
  void waiting.then(() => {
    done = true;
  });
  await new Promise((next) => setImmediate(next));
  return done;
}

test("a write is persisted before the list takes it, and a reader waiting for it is woken", async () => {
  const persisted: string[] = [];
  const store = new HeldListStore(
    () => new HeldList(new EncodedList("held", INITIAL_TASKS)),
    (change) => persisted.push(`${change.kind} ${change.change}`),
  );
  const start = store.read().version.change;
  const waiting = store.nextChange(start, new AbortController().signal);
  expect(await settled(waiting)).toBe(false);
  expect((await store.append({ title: "Third", completed: false }, LIMITS)).outcome).toBe("added");
  expect(persisted).toEqual([`add ${start + 1}`]);
  expect(await settled(waiting)).toBe(true);
  expect(store.read().version.change).toBe(start + 1);
});

test("a write the store cannot persist is refused with its error and leaves the list and its readers as they were", async () => {
  const store = new HeldListStore(
    () => new HeldList(new EncodedList("held", INITIAL_TASKS)),
    () => {
      throw new Error("The disk is full");
    },
  );
  const before = store.read().version;
  const waiting = store.nextChange(before.change, new AbortController().signal);
  await expect(store.update(2, { completed: true }, LIMITS)).rejects.toThrow("The disk is full");
  expect(store.read().version).toBe(before);
  expect(await settled(waiting)).toBe(false);
});

test("ending the list wakes every waiting reader, by change or by bytes, and a reader that waits again returns at once", async () => {
  const store = new HeldListStore(() => new HeldList(new EncodedList("held", INITIAL_TASKS)));
  const { change, changedBytes } = store.read().version;
  const signal = new AbortController().signal;
  const byChange = store.nextChange(change, signal);
  const byBytes = store.nextChange(change, signal, changedBytes + 1024);
  expect(await settled(byChange)).toBe(false);
  expect(await settled(byBytes)).toBe(false);
  store.end();
  expect(await settled(byChange)).toBe(true);
  expect(await settled(byBytes)).toBe(true);
  expect(await settled(store.nextChange(change, signal))).toBe(true);
});

test("where readers look again on a timer of their own, an ended list is found at the next look", async () => {
  const store = new HeldListStore(() => new HeldList(new EncodedList("held", INITIAL_TASKS)), undefined, {
    pollMs: 10,
  });
  const { change } = store.read().version;
  const waiting = store.nextChange(change, new AbortController().signal);
  expect(await settled(waiting)).toBe(false);
  store.end();
  await waiting;
  expect(store.read().version.change).toBe(change);
});
