import { getEventListeners } from "node:events";
import { describe, expect, test, vi } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import { appFrom, postJson } from "./helpers.ts";

const decoder = new TextDecoder();
/** A title of 256 KiB: five of them are more than a MiB. */
const BIG = "x".repeat(256 * 1024);

/** A body's reader, as far as these tests use it. */
interface Reader {
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
  cancel(): Promise<void>;
}

/** Subscribes in-process and hands back the body's reader. */
async function subscribe(app: TaskApp, query = ""): Promise<Reader> {
  const res = await app.request(`/tasks/events${query}`);
  expect(res.status).toBe(200);
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error("An event stream must have a body");
  return reader;
}

/** Reads until `text` has arrived; returns all that was read. */
async function readUntil(reader: Reader, text: string): Promise<string> {
  let read = "";
  while (!read.includes(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`The stream ended before ${JSON.stringify(text)}; got ${read}`);
    read += decoder.decode(value);
  }
  return read;
}

/** Reads until the stream ends, fails, or (when given) `text` has arrived: what was read, and the error if it failed. */
async function readUntilEnd(reader: Reader, text?: string): Promise<{ received: string; ended: unknown }> {
  let received = "";
  while (text === undefined || !received.includes(text)) {
    try {
      const { done, value } = await reader.read();
      if (done) break;
      received += decoder.decode(value);
    } catch (error) {
      return { received, ended: error };
    }
  }
  return { received, ended: undefined };
}

/** The ids of the events in `text`, in order. */
function idsIn(text: string): number[] {
  return [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
}

describe("a subscriber of the list's events", () => {
  test("gets a comment after 15 s without an event, and another 15 s later", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    try {
      const reader = await subscribe(appFrom(), "?after=2");
      expect(await readUntil(reader, ": following the list\n\n")).toBe(": following the list\n\n");
      await vi.advanceTimersByTimeAsync(14_900);
      const early = reader.read();
      let arrived = false;
      void early.then(() => {
        arrived = true;
      });
      await vi.advanceTimersByTimeAsync(50);
      expect(arrived).toBe(false);
      await vi.advanceTimersByTimeAsync(100);
      expect(decoder.decode((await early).value)).toBe(": keep-alive\n\n");
      await vi.advanceTimersByTimeAsync(15_000);
      expect(decoder.decode((await reader.read()).value)).toBe(": keep-alive\n\n");
      await reader.cancel();
    } finally {
      vi.useRealTimers();
    }
  });

  test("that stops reading is cut off once more than a MiB of new tasks waits for it; its cursor brings back the rest", async () => {
    const app = appFrom({ LOG_LEVEL: "off" });
    const reader = await subscribe(app, "?after=2");
    // Nothing is read from here on: the stream holds what it may, then the tasks wait in the list.
    for (let i = 0; i < 6; i++)
      expect((await postJson(app, "/tasks", { title: BIG, completed: false })).status).toBe(200);
    const { received, ended } = await readUntilEnd(reader);
    expect(ended).toBeInstanceOf(Error);
    const ids = idsIn(received);
    expect(ids.length).toBeLessThan(6);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 3 + i));
    const back = await subscribe(app, `?after=${ids.at(-1) ?? 2}`);
    const rest = await readUntil(back, "id: 8\n");
    const restIds = idsIn(rest);
    expect([...ids, ...restIds]).toEqual([3, 4, 5, 6, 7, 8]);
    await back.cancel();
  });

  test("that stops reading is cut off once more than a MiB of changes waits for it, when they are edits of one task", async () => {
    const app = appFrom({ LOG_LEVEL: "off" });
    const reader = await subscribe(app, "?after=2");
    // Each edit carries the whole title: five of them are more than a MiB for the subscriber.
    for (let i = 0; i < 6; i++) {
      const res = await app.request("/tasks/1", {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ title: `${i}${BIG}` }),
      });
      expect(res.status).toBe(200);
    }
    // A subscriber still connected gets this one as well: the end of what it is sent either way.
    expect((await postJson(app, "/tasks", { title: "After the edits", completed: false })).status).toBe(200);
    const { received, ended } = await readUntilEnd(reader, "After the edits");
    expect(ended).toBeInstanceOf(Error);
    const ids = idsIn(received);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 3 + i));
    const back = await subscribe(app, `?after=${ids.at(-1) ?? 2}`);
    const rest = await readUntil(back, "After the edits");
    const restIds = idsIn(rest);
    // Resumed, it gets the task as it now is once, then the new task: nothing is missed.
    expect(restIds.at(-1)).toBe(9);
    expect(rest).toContain(`"title":"5${BIG.slice(0, 16)}`);
    await back.cancel();
  });

  test("catching up from 0 gets the backlog in writes of many events, not one write per event", async () => {
    const app = appFrom({ LOG_LEVEL: "off" });
    for (let i = 0; i < 2000; i++) await postJson(app, "/tasks", { title: `Backlog ${i}`, completed: i % 2 === 0 });
    const reader = await subscribe(app, "?after=0");
    let received = "";
    let writes = 0;
    while (!received.includes("id: 2002\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error("The stream ended before the backlog did");
      received += decoder.decode(value);
      writes += 1;
    }
    const ids = idsIn(received);
    expect(ids).toEqual(Array.from({ length: 2002 }, (_, i) => i + 1));
    // About 100 KiB of events: two writes of 64 KiB, and the opening comment.
    expect(writes).toBeLessThan(10);
    await reader.cancel();
  });

  test("that leaves gives back its slot and leaves nothing behind, however many come and go", async () => {
    const app = appFrom({ LOG_LEVEL: "off", MAX_SUBSCRIBERS: "2000" });
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc === undefined) throw new Error("The unit tests run with --expose-gc (vitest.config.ts)");
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const crowd = async () => {
      const readers = await Promise.all(Array.from({ length: 2000 }, () => subscribe(app, "?after=2")));
      const created = await postJson(app, "/tasks", { title: "For everyone", completed: false });
      const { id } = (await created.json()) as { id: number };
      await Promise.all(readers.map((reader) => readUntil(reader, `id: ${id}\n`)));
      await Promise.all(readers.map((reader) => reader.cancel()));
    };
    await crowd();
    const after = heap();
    // Each crowd fills every slot MAX_SUBSCRIBERS allows: it comes only if the last one's were given back.
    await crowd();
    await crowd();
    expect(heap() - after).toBeLessThan(2 * 1024 * 1024);
  });

  test("of a server that stops gets what was sent, then the end of its stream; one that comes then gets 503 with Retry-After", async () => {
    const { app, closing } = stoppableApp();
    const reader = await subscribe(app);
    const created = await postJson(app, "/tasks", { title: "Before the stop", completed: false });
    const { id } = (await created.json()) as { id: number };
    closing.abort();
    let text = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    expect(idsIn(text)).toEqual([1, 2, id]);

    const late = await app.request("/tasks/events");
    expect(late.status).toBe(503);
    expect(late.headers.get("Retry-After")).toBe("1");
    expect(await late.json()).toEqual({ message: "The server is stopping: connect again in a moment" });
  });

  test("that leaves no longer waits for the server to stop", async () => {
    const { app, closing } = stoppableApp();
    const readers = await Promise.all(Array.from({ length: 50 }, () => subscribe(app, "?after=2")));
    expect(getEventListeners(closing.signal, "abort")).toHaveLength(50);
    await Promise.all(readers.map((reader) => reader.cancel()));
    expect(getEventListeners(closing.signal, "abort")).toHaveLength(0);
  });
});

/** An app on a fresh memory store, and the controller that tells it the server is stopping. */
function stoppableApp(): { app: TaskApp; closing: AbortController } {
  const closing = new AbortController();
  const app = createApp({
    store: new MemoryStore(),
    config: parseAppConfig({ LOG_LEVEL: "off" }),
    closing: closing.signal,
  });
  return { app, closing };
}
