// List keys through app.request, on the memory store and a SQLite file: what a key's POST takes and
// answers, what each key opens and refuses, and that a deleted list's keys die with it.
import { describe, expect, test } from "vitest";
import type { TaskApp } from "../../src/app.ts";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { HeldLists } from "../../src/engine/held-lists.ts";
import { SqliteFileLists } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { LIST_STORES, listsApp } from "./list-helpers.ts";
import { sendJson } from "./list-requests.ts";

const READ = "unit-read-token-0123456789";
const WRITE = "unit-write-token-0123456789";
const TOKENS = { READ_TOKENS: READ, WRITE_TOKENS: WRITE };
const asWriter = { Authorization: `Bearer ${WRITE}` };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

interface MadeKey {
  readonly id: string;
  readonly key: string;
}

async function makeList(app: TaskApp, name: string): Promise<void> {
  expect((await sendJson(app, "PUT", `/lists/${name}`, { title: name }, asWriter)).status).toBe(201);
}

async function makeKey(app: TaskApp, name: string, body: unknown): Promise<MadeKey> {
  const res = await sendJson(app, "POST", `/lists/${name}/keys`, body, asWriter);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as MadeKey;
}

async function status(app: TaskApp, method: string, path: string, token: string, body?: unknown): Promise<number> {
  const init = body === undefined ? { method, headers: bearer(token) } : undefined;
  const res =
    init === undefined ? await sendJson(app, method, path, body, bearer(token)) : await app.request(path, init);
  await res.arrayBuffer();
  return res.status;
}

describe.each(LIST_STORES)("list keys, %s", (store) => {
  test("a POST makes a key shown once, in order, with Location; GET lists them oldest first without it; DELETE revokes", async () => {
    const app = listsApp(TOKENS, store);
    await makeList(app, "shared");
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const res = await sendJson(
      app,
      "POST",
      "/lists/shared/keys",
      { access: "read", label: "Family", expires },
      asWriter,
    );
    expect(res.status).toBe(201);
    const text = await res.text();
    const made = JSON.parse(text) as MadeKey & Record<string, unknown>;
    expect(Object.keys(made)).toEqual(["id", "access", "label", "expires", "key"]);
    expect(made).toMatchObject({ access: "read", label: "Family", expires });
    expect(made.key).toMatch(/^lk_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get("Location")).toBe(`/lists/shared/keys/${made.id}`);
    const second = await makeKey(app, "shared", { access: "write" });
    const listed = await app.request("/lists/shared/keys", { headers: asWriter });
    expect(listed.status).toBe(200);
    const body = await listed.text();
    expect(JSON.parse(body)).toEqual([
      { id: made.id, access: "read", label: "Family", expires },
      { id: second.id, access: "write", label: "", expires: null },
    ]);
    expect(body).not.toContain(made.key);
    expect(await status(app, "DELETE", `/lists/shared/keys/${made.id}`, WRITE)).toBe(204);
    expect(await status(app, "DELETE", `/lists/shared/keys/${made.id}`, WRITE)).toBe(404);
    expect(await status(app, "GET", "/lists/shared/tasks", made.key)).toBe(401);
  });

  test("a key's POST names what it refuses, and the 101st key is 507", async () => {
    const app = listsApp(TOKENS, store);
    await makeList(app, "strict");
    const refusals: [unknown, string][] = [
      [{}, "access"],
      [{ access: "admin" }, "access"],
      [{ access: "read", label: 5 }, "label"],
      [{ access: "read", label: "x".repeat(101) }, "label"],
      [{ access: "read", expires: "tomorrow" }, "expires"],
      [{ access: "read", expires: "2001-01-01T00:00:00Z" }, "expires"],
      [{ access: "read", expires: "2099-02-30T00:00:00Z" }, "expires"],
      [{ access: "read", owner: "me" }, "owner"],
      [[], "JSON object"],
    ];
    for (const [body, named] of refusals) {
      const res = await sendJson(app, "POST", "/lists/strict/keys", body, asWriter);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(named);
    }
    for (let made = 0; made < 100; made++) await makeKey(app, "strict", { access: "read" });
    const full = await sendJson(app, "POST", "/lists/strict/keys", { access: "read" }, asWriter);
    expect(full.status).toBe(507);
  });

  test("a read key reads its list, a write key writes it, and neither opens anything else", async () => {
    const app = listsApp(TOKENS, store);
    await makeList(app, "mine");
    await makeList(app, "other");
    const read = await makeKey(app, "mine", { access: "read" });
    const write = await makeKey(app, "mine", { access: "write" });
    const task = { title: "Shared", completed: false };
    expect(await status(app, "GET", "/lists/mine/tasks", read.key)).toBe(200);
    expect(await status(app, "GET", "/lists/mine", read.key)).toBe(200);
    expect(await status(app, "POST", "/lists/mine/tasks", read.key, task)).toBe(403);
    expect(await status(app, "POST", "/lists/mine/tasks", write.key, task)).toBe(200);
    expect(await status(app, "PATCH", "/lists/mine/tasks/1", write.key, { completed: true })).toBe(200);
    expect(await status(app, "DELETE", "/lists/mine/tasks/1", read.key)).toBe(403);
    for (const [method, path] of [
      ["PUT", "/lists/mine"],
      ["PATCH", "/lists/mine"],
      ["DELETE", "/lists/mine"],
      ["GET", "/lists/mine/keys"],
      ["POST", "/lists/mine/keys"],
    ] as const) {
      const body = method === "GET" || method === "DELETE" ? undefined : { title: "x", access: "read" };
      expect(await status(app, method, path, write.key, body), `${method} ${path}`).toBe(403);
    }
    for (const path of ["/lists/other/tasks", "/lists/never/tasks", "/lists", "/tasks", "/index.php", "/lists/other"]) {
      const res = await app.request(path, { headers: bearer(write.key) });
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="tasks", error="invalid_token"');
    }
  });

  test("a key of the default list opens /tasks, /tasks/{id}, /index.php and /lists/default, and no named list", async () => {
    const app = listsApp(TOKENS, store);
    await makeList(app, "named");
    const read = await makeKey(app, "default", { access: "read" });
    for (const path of ["/tasks", "/tasks/1", "/index.php", "/lists/default", "/lists/default/tasks"]) {
      expect(await status(app, "GET", path, read.key), path).toBe(200);
    }
    expect(await status(app, "GET", "/lists/named/tasks", read.key)).toBe(401);
    const events = await app.request("/tasks/events", { headers: bearer(read.key) });
    expect(events.status).toBe(200);
    await events.body?.cancel();
  });

  test("keys never take access away: with no tokens set, any key or none may do what anyone may", async () => {
    const app = listsApp({}, store);
    await sendJson(app, "PUT", "/lists/open", { title: "Open" });
    const read = await makeKey(app, "open", { access: "read" });
    expect(await status(app, "POST", "/lists/open/tasks", read.key, { title: "Anyone", completed: false })).toBe(200);
    expect(await status(app, "GET", "/lists/open/keys", read.key)).toBe(200);
  });

  test("a deleted list's keys die with it, and the name made again revives none", async () => {
    const app = listsApp(TOKENS, store);
    await makeList(app, "brief");
    const write = await makeKey(app, "brief", { access: "write" });
    expect(await status(app, "DELETE", "/lists/brief", WRITE)).toBe(204);
    expect(await status(app, "GET", "/lists/brief/tasks", write.key)).toBe(401);
    expect(await status(app, "GET", "/lists/brief/keys", WRITE)).toBe(410);
    expect(await status(app, "POST", "/lists/brief/keys", WRITE, { access: "read" })).toBe(410);
    expect(await status(app, "GET", "/lists/never/keys", WRITE)).toBe(404);
    // Told before the body is read: no body, which would be a 400 on a list that lives.
    expect(await status(app, "POST", "/lists/brief/keys", WRITE)).toBe(410);
    expect(await status(app, "POST", "/lists/never/keys", WRITE)).toBe(404);
    await makeList(app, "brief");
    expect(await status(app, "GET", "/lists/brief/tasks", write.key)).toBe(401);
    const listed = await app.request("/lists/brief/keys", { headers: asWriter });
    expect(await listed.text()).toBe("[]");
  });

  test("a subscription opened with a key that expires gets revoked and ends once the expiry passes", async () => {
    const app = listsApp(TOKENS, store);
    await makeList(app, "fading");
    const expires = new Date(Date.now() + 1500).toISOString();
    const read = await makeKey(app, "fading", { access: "read", expires });
    const res = await app.request("/lists/fading/tasks/events", { headers: bearer(read.key) });
    expect(res.status).toBe(200);
    // The stream's whole text, read until the service ends it.
    const text = await res.text();
    expect(text.endsWith("event: revoked\ndata: {}\n\n")).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expires));
  });

  test("an expired key opens nothing", async () => {
    const app = listsApp(TOKENS, store);
    await makeList(app, "soon");
    const expires = new Date(Date.now() + 1500).toISOString();
    const read = await makeKey(app, "soon", { access: "read", expires });
    expect(await status(app, "GET", "/lists/soon/tasks", read.key)).toBe(200);
    await new Promise((done) => setTimeout(done, Date.parse(expires) - Date.now() + 50));
    expect(await status(app, "GET", "/lists/soon/tasks", read.key)).toBe(401);
  });
});

test("a SQLite file keeps a list's keys, never the keys themselves, across a restart", async () => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "task-list-keys-"));
  try {
    const open = () => {
      const connection = openNodeSqlite(join(dir, "tasks.db"));
      return {
        connection,
        app: createApp({
          lists: new SqliteFileLists(connection),
          config: parseAppConfig({ LOG_LEVEL: "off", ...TOKENS }),
        }),
      };
    };
    const first = open();
    await makeList(first.app, "kept");
    const write = await makeKey(first.app, "kept", { access: "write", label: "Kept" });
    const rows = first.connection.query("SELECT * FROM access_keys");
    expect(JSON.stringify(rows)).not.toContain(write.key);
    first.connection.close();
    const second = open();
    expect(await status(second.app, "GET", "/lists/kept/tasks", write.key)).toBe(200);
    second.connection.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a list key a client puts in a path, query or request id never reaches the log", async () => {
  const lines: string[] = [];
  const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const app = createApp({
    lists: new HeldLists(),
    config: parseAppConfig({ LOG_LEVEL: "debug", ...TOKENS }),
    logSink: sink,
  });
  const read = await makeKey(app, "default", { access: "read" });
  await app.request(`/tasks/${read.key}?key=${read.key}`, {
    headers: { "X-Request-Id": read.key, ...bearer(read.key) },
  });
  await app.request(`/tasks?key=${read.key}`, { headers: bearer(read.key) });
  expect(lines.length).toBeGreaterThanOrEqual(3);
  expect(lines.join("\n")).not.toContain(read.key.slice(3));
  expect(lines.join("\n")).toContain("[redacted]");
});
