import { describe, expect, test } from "vitest";
import type { TaskApp } from "../../src/app.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import { appFrom } from "./helpers.ts";

const decoder = new TextDecoder();
const LIMITS = { maxTasks: 1_000, maxBytes: 1024 * 1024, maxKeys: 100 };

/** A subscriber's stream, read in-process. */
async function subscribe(app: TaskApp, headers: Record<string, string> = {}) {
  const res = await app.request("/tasks/events", { headers });
  expect(res.status).toBe(200);
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error("An event stream must have a body");
  let text = "";
  return {
    /** Reads until `count` events (comments left out) have arrived, and returns them. */
    async events(count: number): Promise<string[]> {
      for (;;) {
        const events = text.split("\n\n").filter((event) => event !== "" && !event.startsWith(":"));
        if (events.length >= count && text.endsWith("\n\n")) {
          text = "";
          return events;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error(`The stream ended; got ${text}`);
        text += decoder.decode(value);
      }
    },
    cancel: () => reader.cancel(),
  };
}

describe("a subscriber of a list whose tasks change", () => {
  test("resuming from a change number gets each task changed since, as update, delete and task events, then each change", async () => {
    const store = new MemoryStore();
    const app = appFrom({ LOG_LEVEL: "off" }, store);
    await store.append({ title: "Three", completed: false }, LIMITS);
    await store.update(1, { completed: false }, LIMITS);
    await store.remove(2);
    const stream = await subscribe(app, { "Last-Event-ID": "3" });
    expect(await stream.events(2)).toEqual([
      'id: 4\nevent: update\ndata: {"id":1,"title":"Read the task list specification","completed":false}',
      'id: 5\nevent: delete\ndata: {"id":2}',
    ]);
    await store.update(3, { title: "Three, renamed" }, LIMITS);
    expect(await stream.events(1)).toEqual([
      'id: 6\nevent: update\ndata: {"id":3,"title":"Three, renamed","completed":false}',
    ]);
    await store.remove(1);
    expect(await stream.events(1)).toEqual(['id: 7\nevent: delete\ndata: {"id":1}']);
    await stream.cancel();
  });

  test("with a cursor past the list's last change gets a reset without an id, then the whole list", async () => {
    const store = new MemoryStore();
    const app = appFrom({ LOG_LEVEL: "off" }, store);
    await store.update(2, { completed: true }, LIMITS);
    const stream = await subscribe(app, { "Last-Event-ID": "40" });
    expect(await stream.events(3)).toEqual([
      "event: reset\ndata: {}",
      'id: 1\nevent: task\ndata: {"id":1,"title":"Read the task list specification","completed":true}',
      'id: 3\nevent: task\ndata: {"id":2,"title":"Build the task list service","completed":true}',
    ]);
    await stream.cancel();
  });
});
