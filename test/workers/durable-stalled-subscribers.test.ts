// A subscriber whose list is in a Durable Object and who stopped reading waits in the object until
// it is a MiB behind: each write to the list costs it no call, and it is still cut off in time.
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import { countedBindings } from "./named-lists.ts";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function json(method: string, value: unknown): RequestInit {
  const type = method === "PATCH" ? "application/merge-patch+json" : "application/json";
  return { method, body: JSON.stringify(value), headers: { "Content-Type": type } };
}

/** Waits until `done` holds, looking every 10 ms; a bound far above what it needs ends a hung test. */
async function until(done: () => boolean): Promise<void> {
  for (const end = Date.now() + 60_000; !done(); await sleep(10)) {
    if (Date.now() > end) throw new Error("Waited a minute in vain");
  }
}

test("an event stream that stopped reading is woken by no write to its list, and is cut off once more than a MiB of changes waits for it", async () => {
  const { lists, directory, calls } = countedBindings();
  const app = createApp({ lists: new DurableLists(lists, directory), config: parseAppConfig({ LOG_LEVEL: "error" }) });
  expect((await app.request("/lists/stalled", json("PUT", { title: "Stalled" }))).status).toBe(201);
  // A backlog of more than the 64 KiB a stream holds unsent: the subscriber is full before it reads.
  for (let i = 0; i < 12; i++) {
    const made = await app.request("/lists/stalled/tasks", json("POST", { title: "x".repeat(8192), completed: false }));
    expect(made.status).toBe(200);
  }
  const stream = await app.request("/lists/stalled/tasks/events?after=0");
  expect(stream.status).toBe(200);
  await until(() => calls.includes("nextChange"));
  calls.length = 0;
  for (let i = 0; i < 30; i++) {
    const edited = await app.request("/lists/stalled/tasks/1", json("PATCH", { completed: i % 2 === 0 }));
    expect(edited.status).toBe(200);
  }
  // Time for a woken subscriber to read and wait again, as it did once a write before.
  await sleep(500);
  expect(calls.filter((call) => call === "nextChange")).toEqual([]);
  // Edits carrying more than a MiB past what it was sent end its stream.
  for (let i = 0; i < 11; i++) {
    const edited = await app.request("/lists/stalled/tasks/2", json("PATCH", { title: `${i}`.repeat(100_000) }));
    expect(edited.status).toBe(200);
  }
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  const ended = async () => {
    for (;;) if ((await reader.read()).done) return "closed";
  };
  await expect(ended()).rejects.toThrow("The subscriber stopped reading");
});
