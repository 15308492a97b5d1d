import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { EventReader } from "../conformance/events.ts";
import { createTask, readList } from "../sqlite/durable-server.ts";
import { type IntendedTask, sendIntended } from "../support/keyed-clients.ts";
import { type RunningServer, type Runtime, startServer } from "../support/server.ts";
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
});

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
