// The calls that wait in a list's Durable Object for a change: answered true by the change they wait
// for, by the list's deletion at once, and false at their bound or when their caller leaves.
import { runInDurableObject } from "cloudflare:test";
import { expect, test } from "vitest";
import { listObjects, madeList } from "./named-lists.ts";

const LIMITS = { maxTasks: 100, maxBytes: 1024 * 1024, maxKeys: 10 };
/** Longer than any test runs: a wait that ends does so because something answered it. */
const LONG = 60_000;
const task = { title: "A task to wake the waiting", completed: false };

/**
 * List `name`'s object, made live, and its change number. Calls on one stub reach the object in
 * the order they are made, and a wait is held before the object takes the next call.
 */
async function list(name: string) {
  await madeList(name);
  const object = listObjects().getByName(name);
  const { change } = await object.changes(undefined, 0);
  const waiters = () => runInDurableObject(object, (held) => held.waiters());
  return { object, change, waiters };
}

test("a change answers a call waiting for any change, and one waiting past a mark only once the list passes it", async () => {
  const { object, change, waiters } = await list("waits-changed");
  const any = object.nextChange(change, LONG, "any");
  const far = object.nextChange(change, LONG, "far", 100);
  await object.append(task, LIMITS);
  expect(await any).toBe(true);
  expect(await waiters()).toBe(1);
  for (let i = 0; i < 3; i++) await object.append(task, LIMITS);
  expect(await far).toBe(true);
  expect(await waiters()).toBe(0);
});

test("deleting the list answers every call waiting in its object at once, with a mark or without", async () => {
  const { object, change, waiters } = await list("waits-deleted");
  const any = object.nextChange(change, LONG, "any");
  const marked = object.nextChange(change, LONG, "marked", 1_000_000);
  expect(await object.delete()).toEqual({ state: "gone" });
  expect(await any).toBe(true);
  expect(await marked).toBe(true);
  expect(await waiters()).toBe(0);
  expect(await object.nextChange(change, LONG, "after")).toBe(true);
});

test("a wait ends false at its bound, when its caller stops it, and when another wait takes its key", async () => {
  const { object, change, waiters } = await list("waits-ended");
  expect(await object.nextChange(change, 50, "bounded")).toBe(false);
  const stopped = object.nextChange(change, LONG, "stopped");
  await object.stopWaiting("stopped");
  expect(await stopped).toBe(false);
  const first = object.nextChange(change, LONG, "same");
  const second = object.nextChange(change, LONG, "same");
  expect(await first).toBe(false);
  expect(await waiters()).toBe(1);
  await object.append(task, LIMITS);
  expect(await second).toBe(true);
  expect(await waiters()).toBe(0);
});
