// A list's life through app.request, for any store of many lists: deleted (410 for it, its tasks
// and events; subscribers told `gone`), made again (ids and change numbers continue, keys
// forgotten), raced, guarded and logged.
import { defineWebSocketHelper, WSContext, type WSEvents } from "hono/ws";
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { type EnvRecord, parseAppConfig } from "../../src/config.ts";
import type { TaskLists } from "../../src/engine/task-store.ts";
import { LIST_DELETED, STALE_IF_MATCH } from "../../src/messages.ts";
import { eventually } from "../support/eventually.ts";
import { expectJsonError } from "./helpers.ts";
import { addTask, createList, sendJson } from "./list-requests.ts";

const decoder = new TextDecoder();

/** Registers the rules of a list's life, each test on an app over new lists from `newLists`. */
export function describeListLifecycle(newLists: () => TaskLists | Promise<TaskLists>): void {
  const listsApp = async (env: EnvRecord = {}) =>
    createApp({ lists: await newLists(), config: parseAppConfig({ LOG_LEVEL: "off", ...env }) });

  describe("a deleted list", () => {
    test("answers 410 for itself, its tasks, its task URLs and its events, and leaves /lists", async () => {
      const app = await listsApp();
      await createList(app, "trip");
      await addTask(app, "trip");
      expect((await app.request("/lists/trip", { method: "DELETE" })).status).toBe(204);
      const requests: [string, RequestInit][] = [
        ["/lists/trip", {}],
        ["/lists/trip/", {}],
        ["/lists/trip/tasks", {}],
        ["/lists/trip/tasks/1", {}],
        ["/lists/trip/tasks/events", {}],
        ["/lists/trip/tasks/1", { method: "DELETE" }],
        ["/lists/trip", { method: "DELETE" }],
      ];
      for (const [path, init] of requests) await expectJsonError(await app.request(path, init), 410, LIST_DELETED);
      for (const [method, path, body] of [
        ["POST", "/lists/trip/tasks", { title: "x", completed: false }],
        ["PATCH", "/lists/trip/tasks/1", { completed: true }],
        ["PUT", "/lists/trip/tasks/1", { title: "x", completed: true }],
        ["PATCH", "/lists/trip", { title: "x" }],
      ] as const) {
        await expectJsonError(await sendJson(app, method, path, body), 410, LIST_DELETED);
      }
      expect(await (await app.request("/lists")).text()).toBe('[{"name":"default","title":"Tasks"}]');
    });

    test("made again comes last, empty, continuing its ids and change numbers, its Idempotency-Keys forgotten", async () => {
      const app = await listsApp();
      await createList(app, "again");
      await createList(app, "other");
      const key = { "Idempotency-Key": "same-key" };
      expect(
        (await sendJson(app, "POST", "/lists/again/tasks", { title: "Keyed", completed: false }, key)).status,
      ).toBe(200);
      await addTask(app, "again");
      await addTask(app, "again");
      const oldTag = (await app.request("/lists/again/tasks/3")).headers.get("ETag") ?? "";
      await app.request("/lists/again/tasks/2", { method: "DELETE" });
      const lastChange = Number((await app.request("/lists/again/tasks")).headers.get("ETag")?.match(/-(\d+)"$/)?.[1]);
      await app.request("/lists/again", { method: "DELETE" });
      await createList(app, "again", "Again");
      expect(await (await app.request("/lists/again/tasks")).text()).toBe("[]");
      const names = ((await (await app.request("/lists")).json()) as { name: string }[]).map((list) => list.name);
      expect(names).toEqual(["default", "other", "again"]);
      const replayed = await sendJson(app, "POST", "/lists/again/tasks", { title: "Keyed", completed: false }, key);
      expect(replayed.headers.get("Idempotent-Replayed")).toBeNull();
      expect(((await replayed.json()) as { id: number }).id).toBe(4);
      // Being made again is a change of its own, then the task is the next.
      const etag = (await app.request("/lists/again/tasks")).headers.get("ETag");
      expect(Number(etag?.match(/-(\d+)"$/)?.[1])).toBe(lastChange + 2);
      await expectJsonError(
        await app.request("/lists/again/tasks/3"),
        410,
        "This task was deleted: read the list for the tasks it holds now",
      );
      const stale = await sendJson(app, "PATCH", "/lists/again/tasks/4", { completed: true }, { "If-Match": oldTag });
      await expectJsonError(stale, 412, STALE_IF_MATCH);
    });

    test("tells its event-stream subscribers gone, then ends their streams", async () => {
      const app = await listsApp();
      await createList(app, "live");
      await addTask(app, "live", "Before");
      const res = await app.request("/lists/live/tasks/events");
      expect(res.status).toBe(200);
      const reader = res.body?.getReader();
      if (reader === undefined) throw new Error("An event stream must have a body");
      let received = "";
      while (!received.includes("Before")) received += decoder.decode((await reader.read()).value);
      expect((await app.request("/lists/live", { method: "DELETE" })).status).toBe(204);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += decoder.decode(value);
      }
      expect(received.endsWith("event: gone\ndata: {}\n\n")).toBe(true);
      await expectJsonError(await app.request("/lists/live/tasks/events"), 410, LIST_DELETED);
    });

    test("tells its WebSocket subscribers gone, then closes their sockets", async () => {
      const accepted: WSEvents[] = [];
      const upgradeWebSocket = defineWebSocketHelper((_c, events) => {
        accepted.push(events);
        return new Response(null);
      });
      const config = parseAppConfig({ LOG_LEVEL: "off" });
      const app = createApp({ lists: await newLists(), config, upgradeWebSocket });
      await createList(app, "sockets");
      const handshake = {
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
      };
      await app.request("/lists/sockets/tasks/events", { headers: handshake });
      const sent: string[] = [];
      const closed: (number | undefined)[] = [];
      const socket = new WSContext({
        send: (data) => sent.push(String(data)),
        close: (code) => closed.push(code),
        raw: { bufferedAmount: 0 },
        readyState: 1,
      });
      accepted[0]?.onOpen?.(new Event("open"), socket);
      await addTask(app, "sockets", "Seen");
      // A store elsewhere tells the socket in its own time: the deletion comes once it has.
      await eventually(() => (sent.some((text) => text.includes("Seen")) ? true : undefined));
      await app.request("/lists/sockets", { method: "DELETE" });
      await eventually(() => (closed.length > 0 ? true : undefined));
      expect(sent.at(-1)).toBe('{"event":"gone","data":{}}');
      expect(sent.some((text) => text.includes("Seen"))).toBe(true);
      expect(closed).toEqual([1000]);
    });

    test("raced by writes: each answers 200 or 410, never anything else", async () => {
      const app = await listsApp();
      await createList(app, "raced");
      const first = await addTask(app, "raced");
      const writes = Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0
          ? sendJson(app, "POST", "/lists/raced/tasks", { title: `Task ${i}`, completed: false })
          : sendJson(app, "PATCH", `/lists/raced/tasks/${first}`, { title: `Title ${i}` }),
      );
      const deletion = app.request("/lists/raced", { method: "DELETE" });
      const statuses = (await Promise.all(writes)).map((res) => res.status);
      expect((await deletion).status).toBe(204);
      expect(statuses.filter((status) => status !== 200 && status !== 410)).toEqual([]);
    });
  });

  test("every version names its list's instance by 64 random bits, so two lists' ETags never collide", async () => {
    const app = await listsApp();
    await createList(app, "one");
    await createList(app, "two");
    const instances = [];
    for (const path of ["/tasks", "/lists/one/tasks", "/lists/two/tasks", "/lists", "/lists/one"]) {
      const etag = (await app.request(path)).headers.get("ETag") ?? "";
      expect(etag, `the ETag of ${path}`).toMatch(/^"[0-9a-f]{16}-/);
      instances.push(etag.slice(1, 17));
    }
    expect(new Set(instances.slice(0, 3)).size).toBe(3);
  });

  test("a task's ETag never matches a task of another list", async () => {
    const app = await listsApp();
    await createList(app, "one");
    await createList(app, "two");
    await addTask(app, "one", "Same");
    await addTask(app, "two", "Same");
    const one = (await app.request("/lists/one/tasks/1")).headers.get("ETag") ?? "";
    const two = (await app.request("/lists/two/tasks/1")).headers.get("ETag") ?? "";
    expect(one).not.toBe(two);
    await expectJsonError(
      await sendJson(app, "PATCH", "/lists/two/tasks/1", { completed: true }, { "If-Match": one }),
      412,
      STALE_IF_MATCH,
    );
    expect((await app.request("/lists/two/tasks/1", { headers: { "If-None-Match": one } })).status).toBe(200);
  });

  test("tokens hold for every list: reading /lists and a list is a read, creating, retitling and deleting are writes", async () => {
    const read = "read-token-0123456789";
    const write = "write-token-0123456789";
    const app = await listsApp({ READ_TOKENS: read, WRITE_TOKENS: write });
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    expect((await app.request("/lists")).status).toBe(401);
    expect((await app.request("/lists", { headers: bearer(read) })).status).toBe(200);
    expect((await sendJson(app, "PUT", "/lists/guarded", { title: "x" }, bearer(read))).status).toBe(403);
    expect((await sendJson(app, "POST", "/lists", { title: "x" }, bearer(read))).status).toBe(403);
    expect((await sendJson(app, "PUT", "/lists/guarded", { title: "x" }, bearer(write))).status).toBe(201);
    expect((await app.request("/lists/guarded/tasks")).status).toBe(401);
    expect((await app.request("/lists/guarded/tasks", { headers: bearer(read) })).status).toBe(200);
    expect((await app.request("/lists/guarded", { method: "DELETE", headers: bearer(read) })).status).toBe(403);
    expect((await app.request("/lists/guarded", { method: "DELETE", headers: bearer(write) })).status).toBe(204);
  });

  test("CORS preflights of /lists and /lists/{name} allow the methods each serves", async () => {
    const app = await listsApp({ CORS_ORIGINS: "*" });
    const preflight = (path: string) =>
      app.request(path, {
        method: "OPTIONS",
        headers: { Origin: "https://app.example", "Access-Control-Request-Method": "PUT" },
      });
    const lists = await preflight("/lists");
    expect(lists.status).toBe(204);
    expect(lists.headers.get("Access-Control-Allow-Methods")).toBe("GET,HEAD,POST");
    expect((await preflight("/lists/some")).headers.get("Access-Control-Allow-Methods")).toBe(
      "GET,HEAD,PUT,PATCH,DELETE",
    );
    expect((await preflight("/lists/some/tasks")).headers.get("Access-Control-Allow-Methods")).toBe("GET,HEAD,POST");
  });

  test("each log line of a request to a list names the list", async () => {
    const lines: string[] = [];
    const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const app = createApp({ lists: await newLists(), config: parseAppConfig({}), logSink: sink });
    await sendJson(app, "PUT", "/lists/logged", { title: "Logged" });
    await app.request("/lists/logged/tasks");
    await app.request("/tasks");
    await app.request("/lists");
    const entries = lines.map((line) => JSON.parse(line) as { path: string; list?: string });
    expect(entries.map((entry) => [entry.path, entry.list])).toEqual([
      ["/lists/logged", "logged"],
      ["/lists/logged/tasks", "logged"],
      ["/tasks", "default"],
      ["/lists", undefined],
    ]);
  });
}
