import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { createTask, readList } from "../sqlite/durable-server.ts";
import { type IntendedTask, sendIntended } from "../support/keyed-clients.ts";
import { type RunningServer, type Runtime, startServer } from "../support/server.ts";
import { EventReader, type StreamEvent } from "../support/subscriber-readers.ts";
import { checkList, namedServers, runLoad, settledList } from "./load.ts";
import { onPostgres } from "./servers.ts";

const RUNTIMES: readonly Runtime[] = ["node", "bun", "deno", "workerd"];
const LOAD_MS = 2_000;
const CLIENTS = 16;

describe("servers of Node, Bun, Deno and workerd on one list", () => {
  const { url } = inject("postgres");
  const running = new Map<Runtime, RunningServer>();
  const servers = namedServers(RUNTIMES, running);
  beforeAll(async () => {
    await Promise.all(
      RUNTIMES.map(async (runtime) => {
        const { env, start } = onPostgres(runtime, url, "shared");
        running.set(runtime, await startServer(runtime, { ...env, LOG_LEVEL: "warn" }, start));
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([...running.values()].map((server) => server.stop()));
  });

  test(`under ${LOAD_MS / 1000} s of concurrent POSTs and GETs on all four, each task a POST got 200 for is in every GET started after it on another server, once, with ids 1 to n, and every server gives the list one ETag`, async () => {
    const deadline = Date.now() + LOAD_MS;
    const record = await runLoad(servers, CLIENTS, "Shared", () => Date.now() < deadline);
    const counts = servers.map(({ name }) => `${name} ${record.exchanges.filter((e) => e.server === name).length}`);
    console.log(`${record.acknowledged.size} tasks acknowledged; requests per server: ${counts.join(", ")}`);

    expect(record.problems).toEqual([]);
    expect(record.exchanges.filter((exchange) => exchange.status !== 200)).toEqual([]);
    for (const { name } of servers) {
      expect(
        record.exchanges.filter((exchange) => exchange.server === name && exchange.method === "POST").length,
      ).toBeGreaterThan(0);
    }
    const tasks = await settledList(servers);
    expect(checkList(tasks, record, "Shared")).toEqual([]);
    expect(tasks).toHaveLength(2 + record.acknowledged.size);
  });

  test("a keyed POST one server added is replayed by each other server, the key with another body returns 422 on each, and one key sent to all four at once adds one task", async () => {
    const before = await settledList(servers);
    const intend = (title: string): IntendedTask => ({ key: `shared-${crypto.randomUUID()}`, title, completed: false });
    for (const origin of servers) {
      const intended = intend(`Keyed on ${origin.name}`);
      const added = await sendIntended(origin.server().baseUrl, intended);
      expect([added.status, added.replayed]).toEqual([200, false]);
      for (const { name, server } of servers.filter((other) => other !== origin)) {
        const again = await sendIntended(server().baseUrl, intended);
        expect([again.status, again.replayed, again.task], `${origin.name}'s task sent again to ${name}`).toEqual([
          200,
          true,
          added.task,
        ]);
        const reused = await sendIntended(server().baseUrl, { ...intended, completed: true });
        expect(reused.status, `${origin.name}'s key with another body on ${name}`).toBe(422);
      }
    }
    const together = intend("Keyed on all four at once");
    const replies = await Promise.all(servers.map(({ server }) => sendIntended(server().baseUrl, together)));
    for (const reply of replies) expect([200, 409]).toContain(reply.status);
    const answered = replies.filter((reply) => reply.status === 200);
    expect(answered.filter((reply) => !reply.replayed)).toHaveLength(1);
    expect(new Set(answered.map((reply) => reply.text)).size).toBe(1);

    const after = await settledList(servers);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((task) => task.title)).toEqual([
      ...servers.map(({ name }) => `Keyed on ${name}`),
      together.title,
    ]);
  });

  test("a list created on one server is read, written and followed on each other, and its deletion on another tells each server's subscriber gone", async () => {
    const [maker, ...others] = servers;
    if (maker === undefined) throw new Error("No server to create the list on");
    const json = { "Content-Type": "application/json" };
    const made = await fetch(`${maker.server().baseUrl}/lists/shared-named`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ title: "Shared" }),
    });
    expect(made.status).toBe(201);
    const readers = await Promise.all(
      servers.map(async ({ server }) => {
        const res = await fetch(`${server().baseUrl}/lists/shared-named/tasks/events?after=0`);
        expect(res.status).toBe(200);
        if (res.body === null) throw new Error("An event stream must have a body");
        return new EventReader(res.body);
      }),
    );
    try {
      const created = [];
      for (const { server } of others) {
        const res = await fetch(`${server().baseUrl}/lists/shared-named/tasks`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ title: "On a named list", completed: false }),
        });
        expect(res.status).toBe(200);
        created.push(await res.text());
      }
      expect(created.map((text) => (JSON.parse(text) as { id: number }).id)).toEqual([1, 2, 3]);
      for (const [i, reader] of readers.entries()) {
        const events = await reader.take(created.length, `the subscriber of ${servers[i]?.name}`);
        expect(events.map((event) => event.data)).toEqual(created);
      }
      const deleter = others.at(-1) ?? maker;
      expect((await fetch(`${deleter.server().baseUrl}/lists/shared-named`, { method: "DELETE" })).status).toBe(204);
      for (const [i, reader] of readers.entries()) {
        const [gone] = await reader.take(1, `the subscriber of ${servers[i]?.name}`);
        expect([gone?.event, gone?.data]).toEqual(["gone", "{}"]);
      }
      for (const { server } of servers) {
        expect((await fetch(`${server().baseUrl}/lists/shared-named/tasks`)).status).toBe(410);
      }
      expect(await (await fetch(`${maker.server().baseUrl}/lists`)).json()).toEqual([
        { name: "default", title: "Tasks" },
      ]);
    } finally {
      for (const reader of readers) reader.close();
    }
  });

  test("a subscriber of each server gets every task POSTed to any server, once and in id order", async () => {
    const last = (await readList(servers[0]?.server().baseUrl ?? "")).tasks.at(-1)?.id ?? 0;
    const readers = await Promise.all(
      servers.map(async ({ server }) => {
        const res = await fetch(`${server().baseUrl}/tasks/events?after=${last}`);
        expect(res.status).toBe(200);
        if (res.body === null) throw new Error("An event stream must have a body");
        return new EventReader(res.body);
      }),
    );
    try {
      const created = [];
      for (let i = 0; i < 8; i++) {
        const target = servers[i % servers.length];
        if (target === undefined) throw new Error("No server to POST to");
        created.push(await createTask(target.server().baseUrl, { title: `Told everywhere ${i}`, completed: false }));
      }
      for (const [i, reader] of readers.entries()) {
        const events = await reader.take(created.length, `the subscriber of ${servers[i]?.name}`);
        expect(events.map((event) => event.data)).toEqual(created.map((task) => JSON.stringify(task)));
      }
    } finally {
      for (const reader of readers) reader.close();
    }
  });

  test("a subscriber of each server gets every change made on all four at once, 50 edits of one task among them, each once and in change order, and holds the list", async () => {
    const followers = await Promise.all(
      servers.map(async ({ name, server }) => {
        const res = await fetch(`${server().baseUrl}/tasks/events?after=0`);
        expect(res.status).toBe(200);
        if (res.body === null) throw new Error("An event stream must have a body");
        return new Follower(name, new EventReader(res.body));
      }),
    );
    const send = async (at: number, method: string, path: string, body?: unknown) => {
      const { name, server } = servers[at % servers.length] as (typeof servers)[number];
      const headers = { "Content-Type": "application/json" };
      const res = await fetch(`${server().baseUrl}${path}`, { method, headers, body: JSON.stringify(body) });
      expect(res.status, `${method} ${path} on ${name}`).toBe(method === "DELETE" ? 204 : 200);
      return method === "DELETE" ? 0 : ((await res.json()) as { id: number }).id;
    };
    try {
      // Once a subscriber has this task's event its backlog is behind it: every change after comes as made.
      const edited = await send(0, "POST", "/tasks", { title: "Edited everywhere", completed: false });
      const starts = await Promise.all(
        followers.map((follower) => follower.readUntil((event) => event.data.includes("Edited everywhere"))),
      );
      const start = Number(starts[0]);
      const gone = await Promise.all(
        [1, 2, 3, 4].map((at) => send(at, "POST", "/tasks", { title: `Gone ${at}`, completed: false })),
      );
      await Promise.all([
        ...Array.from({ length: 50 }, (_, at) => send(at, "PATCH", `/tasks/${edited}`, { title: `Edit ${at}` })),
        ...gone.map((id, at) => send(at + 1, "DELETE", `/tasks/${id}`)),
        ...[1, 2, 3, 4].map((at) => send(at + 2, "POST", "/tasks", { title: `Kept ${at}`, completed: true })),
      ]);
      const last = start + gone.length + 50 + gone.length + 4;
      await Promise.all(followers.map((follower) => follower.readUntil((event) => Number(event.id) >= last)));
      const list = await settledList(servers);
      for (const follower of followers) {
        expect(follower.changesAfter(start), `the changes ${follower.name}'s subscriber got`).toEqual(
          Array.from({ length: last - start }, (_, n) => start + 1 + n),
        );
        expect(follower.held(), `the list ${follower.name}'s subscriber holds`).toEqual(list);
      }
    } finally {
      for (const follower of followers) follower.reader.close();
    }
  });
});

/** A subscriber: the events it got, and the tasks it holds from applying them by id. */
class Follower {
  readonly name: string;
  readonly reader: EventReader;
  readonly #events: StreamEvent[] = [];
  readonly #tasks = new Map<number, string>();

  constructor(name: string, reader: EventReader) {
    this.name = name;
    this.reader = reader;
  }

  /** Reads and applies events until one that `last` says is the last awaited, and returns its change number. */
  async readUntil(last: (event: StreamEvent) => boolean): Promise<string | undefined> {
    for (;;) {
      const [event] = await this.reader.take(1, `the subscriber of ${this.name}`);
      if (event === undefined) continue;
      this.#events.push(event);
      const { id } = JSON.parse(event.data) as { id: number };
      if (event.event === "delete") this.#tasks.delete(id);
      else this.#tasks.set(id, event.data);
      if (last(event)) return event.id;
    }
  }

  /** The change numbers of the events it got after change `change`. */
  changesAfter(change: number): number[] {
    return this.#events.map((event) => Number(event.id)).filter((id) => id > change);
  }

  /** The tasks it holds, in id order. */
  held(): unknown[] {
    return [...this.#tasks.entries()].sort(([a], [b]) => a - b).map(([, json]) => JSON.parse(json));
  }
}

describe("two lists in one database", () => {
  const { url } = inject("postgres");
  const started: RunningServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  test("stay apart: each starts with the two initial tasks under an ETag of its own, and a task added to one is not in the other", async () => {
    const start = async (runtime: Runtime, schema: string) => {
      const { env, start } = onPostgres(runtime, url, schema);
      const server = await startServer(runtime, env, start);
      started.push(server);
      return server.baseUrl;
    };
    const [first, second] = await Promise.all([start("node", "apart_first"), start("bun", "apart_second")]);
    const before = await readList(second);
    const other = await readList(first);
    expect(other.tasks).toEqual(before.tasks);
    expect(other.etag).not.toBe(before.etag);

    const added = await createTask(first, { title: "Only in the first list", completed: false });
    expect(added.id).toBe(3);
    expect(await readList(second)).toEqual(before);
    expect(await createTask(second, { title: "Only in the second list", completed: true })).toEqual({
      id: 3,
      title: "Only in the second list",
      completed: true,
    });
    expect((await readList(first)).tasks).toEqual([...before.tasks, added]);
  });
});
