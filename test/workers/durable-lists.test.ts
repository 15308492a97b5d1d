import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { GONE_TEXT } from "../../src/list/event-text.ts";
import type { ListDirectoryObject } from "../../src/runtimes/durable-objects/list-directory-object.ts";
import { storageConnection } from "../../src/runtimes/durable-objects/object-storage.ts";
import { DIRECTORY_OBJECT, DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/sqlite-list.ts";
import { eventually } from "../support/eventually.ts";
import { listObjects } from "./named-lists.ts";

/** The headers of a WebSocket handshake. */
const HANDSHAKE = {
  Upgrade: "websocket",
  Connection: "Upgrade",
  "Sec-WebSocket-Version": "13",
  "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
};

const directoryObjects = (): DurableObjectNamespace<ListDirectoryObject> => {
  if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
  return env.TASK_LISTS;
};

/** A request to the Worker as deployed with `--env durable`. */
function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(`http://example.com${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { "Content-Type": method === "PATCH" ? "application/merge-patch+json" : "application/json", ...headers },
  });
}

async function names(): Promise<string[]> {
  const res = await send("GET", "/lists");
  expect(res.status).toBe(200);
  return ((await res.json()) as { name: string }[]).map((list) => list.name);
}

describe("lists on Durable Objects, through the Worker", () => {
  test("a list is created empty, read, retitled and deleted; made again, its ids and change numbers continue", async () => {
    const created = await send("PUT", "/lists/groceries", { title: "Groceries" });
    expect(created.status).toBe(201);
    expect(created.headers.get("Location")).toBe("/lists/groceries");
    expect(await created.json()).toEqual({ name: "groceries", title: "Groceries" });
    expect((await names()).at(-1)).toBe("groceries");
    expect(await (await send("GET", "/lists/groceries/tasks")).text()).toBe("[]");
    const added = await send("POST", "/lists/groceries/tasks", { title: "Milk", completed: false });
    expect(await added.json()).toEqual({ id: 1, title: "Milk", completed: false });
    const read = await send("GET", "/lists/groceries");
    const etag = read.headers.get("ETag") ?? "";
    expect(await read.json()).toEqual({ name: "groceries", title: "Groceries" });
    expect((await send("PATCH", "/lists/groceries", { title: "Food" }, { "If-Match": '"stale"' })).status).toBe(412);
    const retitled = await send("PATCH", "/lists/groceries", { title: "Food" }, { "If-Match": etag });
    expect(retitled.status).toBe(200);
    expect(await (await send("GET", "/lists/groceries")).json()).toEqual({ name: "groceries", title: "Food" });
    const tasksEtag = (await send("GET", "/lists/groceries/tasks")).headers.get("ETag") ?? "";
    const change = Number(tasksEtag.replaceAll('"', "").split("-").at(-1));

    expect((await send("DELETE", "/lists/groceries")).status).toBe(204);
    expect(await names()).not.toContain("groceries");
    for (const path of ["/lists/groceries", "/lists/groceries/tasks", "/lists/groceries/tasks/1"]) {
      expect((await send("GET", path)).status, path).toBe(410);
    }
    expect((await send("POST", "/lists/groceries/tasks", { title: "Late", completed: false })).status).toBe(410);
    expect((await send("DELETE", "/lists/groceries")).status).toBe(410);

    expect((await send("PUT", "/lists/groceries", { title: "Again" })).status).toBe(201);
    expect(await (await send("GET", "/lists/groceries/tasks")).text()).toBe("[]");
    const next = await send("POST", "/lists/groceries/tasks", { title: "Bread", completed: false });
    expect(await next.json()).toEqual({ id: 2, title: "Bread", completed: false });
    const again = (await send("GET", "/lists/groceries/tasks")).headers.get("ETag") ?? "";
    expect(Number(again.replaceAll('"', "").split("-").at(-1))).toBeGreaterThan(change);
    expect((await names()).at(-1)).toBe("groceries");
  });

  test("a name never created is 404 everywhere; the default list is kept and may be retitled", async () => {
    for (const path of ["/lists/never-made", "/lists/never-made/tasks", "/lists/never-made/tasks/events"]) {
      expect((await send("GET", path)).status, path).toBe(404);
    }
    expect((await send("POST", "/lists/never-made/tasks", { title: "x", completed: false })).status).toBe(404);
    const kept = await send("DELETE", "/lists/default");
    expect(kept.status).toBe(405);
    expect(kept.headers.get("Allow")).toBe("GET, HEAD, PUT, PATCH");
    expect((await names())[0]).toBe("default");
    const etag = (await send("GET", "/lists/default")).headers.get("ETag") ?? "";
    expect((await send("PUT", "/lists/default", { title: "Home" }, { "If-Match": etag })).status).toBe(200);
    expect(await (await send("GET", "/lists/default")).json()).toEqual({ name: "default", title: "Home" });
    expect((await send("PUT", "/lists/default", { title: "Tasks" })).status).toBe(200);
  });

  test("POST /lists creates a list with a random name, once per Idempotency-Key", async () => {
    const headers = { "Idempotency-Key": "durable-list-key" };
    const first = await send("POST", "/lists", { title: "Once" }, headers);
    expect(first.status).toBe(201);
    const list = (await first.json()) as { name: string };
    expect(list.name).toMatch(/^[a-z2-7]{26}$/);
    const replay = await send("POST", "/lists", { title: "Once" }, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(list);
    expect((await send("POST", "/lists", { title: "Other" }, headers)).status).toBe(422);
    expect((await names()).filter((name) => name === list.name)).toHaveLength(1);
  });

  test("of many PUTs with If-None-Match: * of one name at once, exactly one answers 201", async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, at) =>
        send("PUT", "/lists/raced", { title: `Racer ${at}` }, { "If-None-Match": "*" }),
      ),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([201, ...Array.from({ length: 11 }, () => 412)]);
    const winner = answers.find((res) => res.status === 201);
    expect(await (await send("GET", "/lists/raced")).json()).toEqual(await winner?.json());
  });

  test("MAX_LISTS is counted by the directory: a creation past it answers 507, a deletion makes room", async () => {
    const count = (await names()).length;
    const lists = new DurableLists(listObjects(), directoryObjects());
    const app = createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off", MAX_LISTS: String(count + 1) }) });
    const put = (name: string) =>
      app.request(`/lists/${name}`, {
        method: "PUT",
        body: JSON.stringify({ title: name }),
        headers: { "Content-Type": "application/json" },
      });
    expect((await put("limit-one")).status).toBe(201);
    expect((await put("limit-two")).status).toBe(507);
    expect((await app.request("/lists/limit-one", { method: "DELETE" })).status).toBe(204);
    expect((await put("limit-two")).status).toBe(201);
  });

  test("a WebSocket subscriber of a list held by its object gets gone when the list is deleted, and the socket closes", async () => {
    expect((await send("PUT", "/lists/followed", { title: "Followed" })).status).toBe(201);
    const res = await exports.default.fetch("http://example.com/lists/followed/tasks/events", {
      headers: {
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket;
    if (ws === null) throw new Error("The upgrade must carry a socket");
    const messages: string[] = [];
    const closed = new Promise<number>((done) => ws.addEventListener("close", (event) => done(event.code)));
    ws.addEventListener("message", (event) => {
      messages.push(String(event.data));
    });
    ws.accept();
    const added = await send("POST", "/lists/followed/tasks", { title: "Seen", completed: false });
    expect(added.status).toBe(200);
    expect((await send("DELETE", "/lists/followed")).status).toBe(204);
    expect(await closed).toBe(1000);
    expect(messages.map((text) => JSON.parse(text).event)).toEqual(["task", "gone"]);
    expect(messages.at(-1)).toBe(GONE_TEXT);
    const again = await exports.default.fetch("http://example.com/lists/followed/tasks/events");
    expect(again.status).toBe(410);
  });

  test("a WebSocket subscriber that is up to date gets each change once, in order, also after its object left memory", async () => {
    expect((await send("PUT", "/lists/live-socket", { title: "Live" })).status).toBe(201);
    const ws = (
      await exports.default.fetch("http://example.com/lists/live-socket/tasks/events", { headers: HANDSHAKE })
    ).webSocket;
    if (ws === null) throw new Error("The upgrade must carry a socket");
    const messages: { id: number; event: string; data: { title?: string } }[] = [];
    ws.addEventListener("message", (event) => {
      messages.push(JSON.parse(String(event.data)));
    });
    ws.accept();
    const titled = (title: string) => send("POST", "/lists/live-socket/tasks", { title, completed: false });
    expect((await titled("First")).status).toBe(200);
    expect((await send("PATCH", "/lists/live-socket/tasks/1", { title: "First, edited" })).status).toBe(200);
    await eventually(() => (messages.length === 2 ? true : undefined));
    await evictDurableObject(listObjects().getByName("live-socket"));
    expect((await titled("After the eviction")).status).toBe(200);
    await eventually(() => (messages.length === 3 ? true : undefined));
    expect(messages.map(({ id, event, data }) => [id, event, data.title])).toEqual([
      [1, "task", "First"],
      [2, "update", "First, edited"],
      [3, "task", "After the eviction"],
    ]);
    ws.close();
  });

  test("an event stream reader waiting in the list's object reads gone when the list is deleted", async () => {
    expect((await send("PUT", "/lists/streamed", { title: "Streamed" })).status).toBe(201);
    const stream = await exports.default.fetch("http://example.com/lists/streamed/tasks/events");
    const reader = stream.body?.getReader();
    if (reader === undefined) throw new Error("An event stream must have a body");
    expect((await send("DELETE", "/lists/streamed")).status).toBe(204);
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain("event: gone\ndata: {}\n");
  });
});

describe("a failure between the directory and a list's object", () => {
  /**
   * Makes list `name`'s object refuse to write its row, as a crash would leave it untold: the row
   * that makes its list live (the object of a name never created gets its tables first, to hold the
   * trigger), or the one row a deletion keeps in place of its tables.
   */
  const refuse = (name: string, row: "list" | "deleted") =>
    runInDurableObject(listObjects().getByName(name), (_instance, state) => {
      openSqliteDatabase(storageConnection(state.storage));
      if (row === "deleted") {
        state.storage.sql.exec("CREATE TABLE deleted_list (name TEXT, highest_id INTEGER, change INTEGER)");
      }
      state.storage.sql.exec(
        `CREATE TRIGGER refuse_row BEFORE INSERT ON ${row === "list" ? "lists" : "deleted_list"} BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
      );
    });
  const allow = (name: string) =>
    runInDurableObject(listObjects().getByName(name), (_instance, state) => {
      state.storage.sql.exec("DROP TRIGGER refuse_row");
    });

  test("a creation its list's object missed is made when the directory wakes on its alarm: /lists and the list agree", async () => {
    await refuse("missed-creation", "list");
    expect((await send("PUT", "/lists/missed-creation", { title: "Missed" })).status).toBe(503);
    expect((await send("GET", "/lists/missed-creation")).status).toBe(404);
    await allow("missed-creation");
    expect(await runDurableObjectAlarm(directoryObjects().getByName(DIRECTORY_OBJECT))).toBe(true);
    expect(await (await send("GET", "/lists/missed-creation")).json()).toEqual({
      name: "missed-creation",
      title: "Missed",
    });
    expect(await names()).toContain("missed-creation");
  });

  test("a deletion its list's object missed is made at the directory's next call; the list takes no new decision till then", async () => {
    expect((await send("PUT", "/lists/missed-deletion", { title: "Doomed" })).status).toBe(201);
    await refuse("missed-deletion", "deleted");
    expect((await send("DELETE", "/lists/missed-deletion")).status).toBe(503);
    expect(await names()).not.toContain("missed-deletion");
    expect((await send("PUT", "/lists/missed-deletion", { title: "Back" })).status).toBe(503);
    await allow("missed-deletion");
    expect(await names()).not.toContain("missed-deletion");
    expect((await send("GET", "/lists/missed-deletion")).status).toBe(410);
    expect((await send("GET", "/lists/missed-deletion/tasks")).status).toBe(410);
    // The alarm set for it finds nothing left to tell.
    await runDurableObjectAlarm(directoryObjects().getByName(DIRECTORY_OBJECT));
    expect((await send("PUT", "/lists/missed-deletion", { title: "Back" })).status).toBe(201);
  });
});
