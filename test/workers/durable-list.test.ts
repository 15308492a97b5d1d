import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import type { TaskListObject } from "../../src/runtimes/durable-objects/task-list-object.ts";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";

interface Task {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

const namespace = (): DurableObjectNamespace<TaskListObject> => {
  if (env.TASK_LIST === undefined) throw new Error("The durable environment must bind TASK_LIST");
  return env.TASK_LIST;
};
const listObject = () => namespace().getByName("default");

function post(task: { title: string; completed: boolean }): Promise<Response> {
  return exports.default.fetch("http://example.com/tasks", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(task),
  });
}

async function read(): Promise<{ etag: string | null; text: string; tasks: Task[] }> {
  const res = await exports.default.fetch("http://example.com/tasks");
  expect(res.status).toBe(200);
  const text = await res.text();
  return { etag: res.headers.get("ETag"), text, tasks: JSON.parse(text) as Task[] };
}

describe("the list in the Durable Object", () => {
  test("survives the object's eviction: same tasks, same ETag, and ids continue", async () => {
    expect((await post({ title: "Before eviction", completed: true })).status).toBe(200);
    const before = await read();

    await evictDurableObject(listObject());

    const unchanged = await exports.default.fetch("http://example.com/tasks", {
      headers: { "If-None-Match": before.etag ?? "" },
    });
    expect(unchanged.status).toBe(304);
    expect(await read()).toEqual(before);
    const next = (await (await post({ title: "After eviction", completed: false })).json()) as Task;
    expect(next).toEqual({ id: (before.tasks.at(-1)?.id ?? 0) + 1, title: "After eviction", completed: false });
    expect((await read()).tasks).toEqual([...before.tasks, next]);
  });

  test("is one list for every isolate: a task one Worker appends is in another Worker's next read", async () => {
    const config = parseAppConfig({});
    const first = createApp({ store: new DurableObjectStore(namespace()), config });
    const second = createApp({ store: new DurableObjectStore(namespace()), config });
    const seen = await (await second.request("/tasks")).text();

    const created = await first.request("/tasks", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ title: "Seen everywhere", completed: false }),
    });
    expect(created.status).toBe(200);

    const after = await second.request("/tasks");
    const tasks = (await after.json()) as Task[];
    expect(tasks).toEqual([...(JSON.parse(seen) as Task[]), await created.json()]);
  });

  test("a subscriber of one isolate gets every task appended through another, once and in id order", async () => {
    const config = parseAppConfig({ LOG_LEVEL: "off" });
    const watching = createApp({ store: new DurableObjectStore(namespace()), config });
    const adding = createApp({ store: new DurableObjectStore(namespace()), config });
    const last = ((await (await adding.request("/tasks")).json()) as Task[]).at(-1)?.id ?? 0;
    const stream = await watching.request(`/tasks/events?after=${last}`);
    const reader = stream.body?.getReader();
    if (reader === undefined) throw new Error("An event stream must have a body");
    const created: Task[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await adding.request("/tasks", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ title: `From another isolate ${i}`, completed: false }),
      });
      created.push((await res.json()) as Task);
    }
    let text = "";
    while (!text.includes(`id: ${created.at(-1)?.id}\n`)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`The stream ended early: ${text}`);
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const data = [...text.matchAll(/^data: (.*)$/gm)].map((match) => match[1]);
    expect(data).toEqual(created.map((task) => JSON.stringify(task)));
  });

  test("a failed write returns 500, adds nothing, and the next append takes the next id", async () => {
    const before = await read();
    await runInDurableObject(listObject(), (_instance, state) => {
      state.storage.sql.exec(
        "CREATE TRIGGER refuse_insert BEFORE INSERT ON tasks BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END",
      );
    });

    const refused = await post({ title: "Never stored", completed: true });
    expect(refused.status).toBe(500);
    expect(await refused.text()).toBe(JSON.stringify({ message: "Internal server error" }));
    expect(await read()).toEqual(before);

    await runInDurableObject(listObject(), (_instance, state) => {
      state.storage.sql.exec("DROP TRIGGER refuse_insert");
    });
    await evictDurableObject(listObject());
    expect(await read()).toEqual(before);
    const next = (await (await post({ title: "Stored", completed: true })).json()) as Task;
    expect(next.id).toBe((before.tasks.at(-1)?.id ?? 0) + 1);
  });
});

describe("a list in the Durable Object past MAX_LIST_BYTES, made under a larger limit", () => {
  test("still loads past the limit, serves every task, returns 507, and the Worker says so once, on its first read", async () => {
    const title = "é".repeat(500_000);
    // Tables holding 38 MB, as a deployment with a larger MAX_LIST_BYTES left them: past the default
    // 16 MiB, and past RPC's 32 MiB, which a list handed over whole would hit.
    const tasks = await runInDurableObject(listObject(), (_instance, state) => {
      const sql = state.storage.sql;
      let id = Number(sql.exec("SELECT MAX(id) AS id FROM tasks WHERE list = 'default'").one().id);
      for (let i = 0; i < 38; i++) {
        id += 1;
        sql.exec(
          "INSERT INTO tasks (list, id, title_json, completed, created, changed) VALUES ('default', ?, ?, 0, ?, ?)",
          id,
          JSON.stringify(title),
          id,
          id,
        );
      }
      sql.exec("UPDATE lists SET change_number = ?, highest_id = ? WHERE name = 'default'", id, id);
      return id;
    });
    await evictDurableObject(listObject());
    // A new isolate, as after the deploy that brought the limit: its first read says so.
    const lines: string[] = [];
    const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const app = createApp({
      store: new DurableObjectStore(namespace()),
      config: parseAppConfig({ LOG_LEVEL: "warn" }),
      logSink: sink,
    });
    const res = await app.request("/tasks");
    const text = await res.text();
    expect(JSON.parse(text)).toHaveLength(tasks);
    expect(new TextEncoder().encode(text).byteLength).toBeGreaterThan(32 * 1024 * 1024);
    const refused = await app.request("/tasks", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ title: "", completed: false }),
    });
    expect(refused.status).toBe(507);
    expect(await refused.json()).toEqual({
      message: "Task list is full: this task would take the list past its limit of 16777216 bytes",
    });
    expect(await (await app.request("/tasks")).text()).toBe(text);
    const warnings = lines
      .filter((line) => line.includes("MAX_LIST_BYTES ("))
      .map((line) => JSON.parse(line) as { level: string; message: string });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: "warn" });
    expect(warnings[0]?.message).toContain("more than MAX_LIST_BYTES (16777216)");
  });
});

describe("a write called with another version's arguments, as while a deploy spreads", () => {
  test("is refused by the object, and the list and its tasks are as they were", async () => {
    const before = await read();
    const limits = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
    const titleJson = new TextEncoder().encode(JSON.stringify("From an older Worker"));
    // The arguments an older Worker sent: a title as the UTF-8 of its JSON, then completed.
    const older = listObject() as unknown as {
      append(...args: unknown[]): Promise<unknown>;
      update(...args: unknown[]): Promise<unknown>;
    };
    const refused = { outcome: "storage-failed", message: expect.stringMatching(/without a task it can read/) };
    expect(await older.append(titleJson, false, limits)).toEqual(refused);
    const task = before.tasks[0] as Task;
    expect(await older.update(task.id, titleJson, true, limits, undefined)).toEqual(refused);
    expect(await older.update(task.id, undefined, true, limits, undefined)).toEqual(refused);
    expect(await read()).toEqual(before);
  });
});
