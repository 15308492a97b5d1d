// A list restored from a copy, as a client sees it: what it kept from the list as it went on after
// the copy (a task's ETag, the list's, a subscriber's cursor) must mean nothing in the restored list,
// even once another task has taken the kept task's id.
import { expect } from "vitest";
import { EventReader, type StreamEvent } from "./subscriber-readers.ts";

/** A task as the service answers it. */
export interface Task {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/** What clients kept from the list once Alice's task was added after the copy. */
export interface Kept {
  readonly alice: Task;
  /** Alice's task's ETag. */
  readonly taskEtag: string;
  /** The list's ETag. */
  readonly listEtag: string;
  /** The cursor of a subscriber that received Alice's task. */
  readonly cursor: string;
}

const TIMEOUT_MS = 30_000;
const ALICE = { title: "Pay Alice", completed: false };
const MALLORY = { title: "Pay Mallory", completed: false };

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
}

async function post(baseUrl: string, task: { title: string; completed: boolean }): Promise<Task> {
  const res = await call(`${baseUrl}/tasks`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(task),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Task;
}

async function etagOf(url: string): Promise<string> {
  const res = await call(url);
  expect(res.status).toBe(200);
  await res.body?.cancel();
  const etag = res.headers.get("ETag");
  expect(etag).not.toBeNull();
  return etag ?? "";
}

/** The list's tasks now. */
export async function tasksOf(baseUrl: string): Promise<Task[]> {
  const res = await call(`${baseUrl}/tasks`);
  expect(res.status).toBe(200);
  return (await res.json()) as Task[];
}

/** Subscribes from `cursor` (as a reconnecting EventSource does) and reads the first `count` events. */
export async function eventsFrom(baseUrl: string, cursor: string, count: number): Promise<StreamEvent[]> {
  const res = await call(`${baseUrl}/tasks/events`, { headers: { "Last-Event-ID": cursor } });
  expect(res.status).toBe(200);
  const reader = new EventReader(res.body as ReadableStream<Uint8Array>);
  try {
    return await reader.take(count, `events after ${cursor}`);
  } finally {
    reader.close();
  }
}

/** Adds Alice's task and keeps what clients would: her ETag, the list's, and a subscriber's cursor. */
export async function addAlice(baseUrl: string): Promise<Kept> {
  const alice = await post(baseUrl, ALICE);
  const taskEtag = await etagOf(`${baseUrl}/tasks/${alice.id}`);
  const listEtag = await etagOf(`${baseUrl}/tasks`);
  // A subscriber from nothing gets the whole list, Alice's task last: its cursor is her event's id.
  const list = await tasksOf(baseUrl);
  const events = await eventsFrom(baseUrl, "0", list.length);
  const last = events.at(-1);
  expect(last?.data).toBe(JSON.stringify(alice));
  return { alice, taskEtag, listEtag, cursor: last?.id ?? "" };
}

/**
 * Adds Mallory's task to the restored list, which takes Alice's id, and checks that nothing kept
 * from before means anything: her ETag gets 200 and 412, not 304 and a write to Mallory's task;
 * the list's ETag gets 200; her cursor gets a reset and then the whole list. Returns Mallory's
 * task's ETag and the cursor the subscriber ends on.
 */
export async function expectNothingKeptHolds(baseUrl: string, kept: Kept): Promise<{ etag: string; cursor: string }> {
  const mallory = await post(baseUrl, MALLORY);
  expect(mallory.id).toBe(kept.alice.id);
  const url = `${baseUrl}/tasks/${mallory.id}`;

  const read = await call(url, { headers: { "If-None-Match": kept.taskEtag } });
  expect(read.status).toBe(200);
  expect(await read.json()).toEqual(mallory);
  const etag = read.headers.get("ETag") ?? "";
  expect(etag).not.toBe(kept.taskEtag);

  const patched = await call(url, {
    method: "PATCH",
    headers: { "Content-Type": "application/merge-patch+json", "If-Match": kept.taskEtag },
    body: JSON.stringify({ completed: true }),
  });
  expect(patched.status).toBe(412);
  await patched.body?.cancel();
  const deleted = await call(url, { method: "DELETE", headers: { "If-Match": kept.taskEtag } });
  expect(deleted.status).toBe(412);
  await deleted.body?.cancel();
  expect(await (await call(url)).json()).toEqual(mallory);

  const list = await call(`${baseUrl}/tasks`, { headers: { "If-None-Match": kept.listEtag } });
  expect(list.status).toBe(200);
  const tasks = (await list.json()) as Task[];
  expect(tasks.at(-1)).toEqual(mallory);

  const events = await eventsFrom(baseUrl, kept.cursor, 1 + tasks.length);
  expect(events[0]).toMatchObject({ id: undefined, event: "reset", data: "{}" });
  const rest = events.slice(1);
  expect(rest.map((event) => event.event)).toEqual(tasks.map(() => "task"));
  expect(rest.map((event) => JSON.parse(event.data) as Task)).toEqual(tasks);
  return { etag, cursor: rest.at(-1)?.id ?? "" };
}
