import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { EventReader } from "../conformance/events.ts";
import { createTask, readList } from "../sqlite/durable-server.ts";
import { type RunningServer, type Runtime, startServer } from "../support/server.ts";
import { checkList, namedServers, runLoad, settledList } from "./load.ts";
import { onPostgres } from "./servers.ts";

const RUNTIMES: readonly Runtime[] = ["node", "bun", "deno", "wrangler"];
const LOAD_MS = 4_000;
const CLIENTS = 16;

describe("servers of Node, Bun, Deno and wrangler dev on one list", () => {
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
