import { describe, expect, test } from "vitest";
import { MemoryStore } from "../../src/engine/memory.ts";
import { appFrom, ENTRY_POINTS, expectRefused, postJson, readTasks, snapshot } from "./helpers.ts";

describe.each(ENTRY_POINTS)("a full list on $path", ({ env, path }) => {
  test("returns 507 once the list holds MAX_TASKS tasks, and adds nothing", async () => {
    const app = appFrom({ ...env, MAX_TASKS: "4" });
    for (const title of ["Third", "Fourth"]) {
      expect((await postJson(app, path, { title, completed: false })).status).toBe(200);
    }
    const full = "Task list is full: it holds the maximum of 4 tasks";
    await expectRefused(app, path, () => postJson(app, path, { title: "Fifth", completed: false }), 507, full);
    await expectRefused(app, path, () => postJson(app, path, { title: "Sixth", completed: true }), 507, full);
    expect((await readTasks(app, path)).map((task) => task.title).slice(2)).toEqual(["Third", "Fourth"]);
  });

  test("GET, HEAD and conditional GET keep working when the list is full", async () => {
    const app = appFrom({ ...env, MAX_TASKS: "2" });
    expect((await postJson(app, path, { title: "Refused", completed: true })).status).toBe(507);
    const { etag, text } = await snapshot(app, path);
    expect(JSON.parse(text)).toHaveLength(2);
    const head = await app.request(path, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("ETag")).toBe(etag);
    const conditional = await app.request(path, { headers: { "If-None-Match": etag ?? "" } });
    expect(conditional.status).toBe(304);
  });
});

test("by default the list is full at 100000 tasks", async () => {
  const store = new MemoryStore();
  const filler = { title: "Filler", completed: false };
  // Filled through the store, which is what a POST does after its checks, at a fraction of the cost.
  for (let i = 3; i < 100_000; i++)
    await store.append(filler, { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 });
  const app = appFrom({}, store);
  const init = { method: "POST", body: JSON.stringify(filler), headers: { "Content-Type": "application/json" } };
  const last = await app.request("/tasks", init);
  expect(await last.json()).toEqual({ id: 100_000, title: "Filler", completed: false });
  await expectRefused(
    app,
    "/tasks",
    () => app.request("/tasks", init),
    507,
    "Task list is full: it holds the maximum of 100000 tasks",
  );
});
