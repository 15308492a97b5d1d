import { describe, expect, test } from "vitest";
import { appFrom, ENTRY_POINTS, postJson, readTasks } from "./helpers.ts";

describe.each(ENTRY_POINTS)("GET and HEAD on $path", ({ env, path }) => {
  test("a fresh list holds two tasks with ids 1 and 2, one completed and one not", async () => {
    const tasks = await readTasks(appFrom(env), path);
    expect(tasks.map((task) => task.id)).toEqual([1, 2]);
    expect(tasks.map((task) => task.completed).sort()).toEqual([false, true]);
    for (const task of tasks) expect(typeof task.title).toBe("string");
  });

  test("every task has exactly the keys id, title, completed, in that order", async () => {
    const app = appFrom(env);
    await postJson(app, path, { title: "Third", completed: true, extra: 1 });
    const tasks = await readTasks(app, path);
    expect(tasks).toHaveLength(3);
    for (const task of tasks) expect(Object.keys(task)).toEqual(["id", "title", "completed"]);
  });

  test("GET returns 200 with the list as JSON, an ETag, no-cache and nosniff", async () => {
    const res = await appFrom(env).request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("ETag")).toMatch(/^"[^"]+"$/);
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const text = await res.text();
    expect(Array.isArray(JSON.parse(text))).toBe(true);
    const head = await appFrom(env).request(path, { method: "HEAD" });
    expect(head.headers.get("Content-Length")).toBe(String(new TextEncoder().encode(text).byteLength));
  });

  test("HEAD answers what GET answers, without the body", async () => {
    const app = appFrom(env);
    const get = await app.request(path);
    const head = await app.request(path, { method: "HEAD" });
    expect(head.status).toBe(200);
    // Each response gets its own request id; HEAD states the length the runtime gives GET's body; every other header is the same.
    const withoutRequestId = (res: Response) =>
      [...res.headers].filter(([name]) => name !== "x-request-id" && name !== "content-length");
    expect(withoutRequestId(head)).toEqual(withoutRequestId(get));
    expect(await head.text()).toBe("");
  });

  test("a query string other than after, completed and limit is ignored", async () => {
    const app = appFrom(env);
    const plain = await app.request(path);
    const queried = await app.request(`${path}?page=2&offset=1&id=1&Limit=1`);
    expect(queried.status).toBe(200);
    expect(queried.headers.get("ETag")).toBe(plain.headers.get("ETag"));
    expect(await queried.text()).toBe(await plain.text());
  });

  test("a POST with a query string creates the task as usual", async () => {
    const app = appFrom(env);
    const res = await postJson(app, `${path}?id=99&completed=false`, { title: "Queried", completed: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 3, title: "Queried", completed: true });
  });
});

test("/tasks and /index.php serve the same list", async () => {
  const app = appFrom();
  await postJson(app, "/index.php", { title: "Posted to the script path", completed: false });
  await postJson(app, "/tasks", { title: "Posted to the resource path", completed: true });
  const fromTasks = await app.request("/tasks");
  const fromScript = await app.request("/index.php");
  expect(fromScript.headers.get("ETag")).toBe(fromTasks.headers.get("ETag"));
  const text = await fromTasks.text();
  expect(await fromScript.text()).toBe(text);
  expect((JSON.parse(text) as unknown[]).length).toBe(4);
});
