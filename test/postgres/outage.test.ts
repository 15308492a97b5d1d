import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectEachOnce, runKeyedClients } from "../support/keyed-clients.ts";
import { startPostgres, type ThrowawayPostgres } from "../support/postgres-server.ts";
import { type RunningServer, type Runtime, startServer } from "../support/server.ts";
import { checkList, type Exchange, type NamedServer, namedServers, runLoad, settledList } from "./load.ts";
import { onPostgres } from "./servers.ts";

const RUNTIMES: readonly Runtime[] = ["node", "bun", "deno", "workerd"];
const CLIENTS = 8;
/** Clients beside the load that send each task with a key of its own, and retry it until a 200. */
const KEYED_CLIENTS = 4;
const KEYED_PAUSE_MS = 100;
const BEFORE_MS = 1_000;
const DOWN_MS = 1_500;
const AFTER_MS = 1_000;
/**
 * How long each server may take to return 200 again once the database is back: a connection
 * attempt made while the database was stopping may take its whole 10 s connect timeout to fail
 * on a busy machine, so three times that.
 */
const RECOVERY_MS = 30_000;
const UNAVAILABLE = JSON.stringify({ message: "Task list store cannot be reached: try again in a moment" });

describe("servers of Node, Bun, Deno and workerd whose database stops and starts again under load", () => {
  // A database of its own, since this one is stopped in the middle.
  let database: ThrowawayPostgres | undefined;
  const running = new Map<Runtime, RunningServer>();
  const servers = namedServers(RUNTIMES, running);
  beforeAll(async () => {
    database = await startPostgres();
    const url = database.url;
    await Promise.all(
      RUNTIMES.map(async (runtime) => {
        const { env, start } = onPostgres(runtime, url, "outage");
        running.set(runtime, await startServer(runtime, env, start));
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([...running.values()].map((server) => server.stop()));
    await database?.stop();
  });

  test("return 503 with Retry-After while it is down, never 500, serve again by themselves when it is back, lose or repeat no task, and add each task of clients that retry with their keys exactly once", async () => {
    const db = database;
    if (db === undefined) throw new Error("The database did not start");
    let loading = true;
    const cursor = (await settledList(servers)).at(-1)?.id ?? 0;
    // One subscriber per server, which comes back with its cursor whenever its stream ends, as EventSource does.
    const followers = servers.map(({ server }) =>
      follower(
        () => server().baseUrl,
        cursor,
        () => loading,
      ),
    );
    const load = runLoad(servers, CLIENTS, "Outage", () => loading);
    // Each attempt of a task goes to the next server: a retry may reach another process than the first try.
    const keyedLoad = runKeyedClients({
      clients: KEYED_CLIENTS,
      prefix: "Keyed outage",
      more: () => loading,
      target: (n, attempt) => (servers[(n + attempt) % servers.length] as NamedServer).server().baseUrl,
      pauseMs: KEYED_PAUSE_MS,
    });

    await sleep(BEFORE_MS);
    await db.pause();
    const downAt = Date.now();
    await sleep(DOWN_MS);
    const upAt = Date.now();
    await db.resume();
    const recovered = await Promise.all(servers.map((server) => firstSuccess(server, upAt)));
    await sleep(AFTER_MS);
    loading = false;
    const record = await load;
    const keyed = await keyedLoad;

    const during = (e: Exchange) => e.startedAt >= downAt + 100 && e.endedAt <= upAt;
    const unexpected = record.exchanges.filter((e) => ![200, 503].includes(e.status));
    expect(unexpected).toEqual([]);
    for (const exchange of record.exchanges.filter((e) => e.status === 503)) {
      expect({ retryAfter: exchange.retryAfter, body: exchange.body }).toEqual({ retryAfter: "1", body: UNAVAILABLE });
    }
    for (const { name } of servers) {
      const down = record.exchanges.filter((e) => e.server === name && during(e));
      expect(down.length, `requests ${name} answered while the database was down`).toBeGreaterThan(0);
      expect(down.filter((e) => e.status !== 503)).toEqual([]);
    }
    for (const [i, ms] of recovered.entries()) {
      expect(ms, `ms ${servers[i]?.name} took to serve again`).toBeLessThan(RECOVERY_MS);
    }
    // Once a server answers again, it answers every request: no connection of its pool is left broken.
    for (const [i, { name }] of servers.entries()) {
      const back = upAt + (recovered[i] ?? 0);
      const after = record.exchanges.filter((e) => e.server === name && e.startedAt > back);
      expect(after.length, `requests ${name} answered after it was back`).toBeGreaterThan(0);
      expect(after.filter((e) => e.status !== 200)).toEqual([]);
    }
    expect(record.problems).toEqual([]);

    const tasks = await settledList(servers);
    const inDoubt = checkList(tasks, record, "Outage");
    // Each subscriber got every task after its cursor once, in order, however often it came back.
    const expectedIds = tasks.filter((task) => task.id > cursor).map((task) => task.id);
    for (const [i, follow] of followers.entries()) {
      expect(await follow.finish(expectedIds.at(-1) ?? cursor), `what ${servers[i]?.name}'s subscriber got`).toEqual(
        expectedIds,
      );
    }
    // A POST cut off mid-commit may have added its task; only those can be in the list without a 200.
    for (const task of inDoubt) expect(record.sent.get(task.title)).toBe(503);
    expectEachOnce(tasks, keyed, "Keyed outage");
    expect(keyed.retried.unavailable, "keyed attempts returned 503 and sent again").toBeGreaterThan(0);
    expect(tasks).toHaveLength(2 + record.acknowledged.size + inDoubt.length + keyed.answers.length);
    console.log(
      `${record.acknowledged.size} tasks acknowledged, ${record.exchanges.filter((e) => e.status === 503).length} 503s, ${inDoubt.length} in doubt; back after ${recovered.map((ms, i) => `${servers[i]?.name} ${ms} ms`).join(", ")}`,
    );
    console.log(
      `keyed: ${keyed.answers.length} tasks added once, ${keyed.answers.filter((a) => a.replayed).length} by a replay; retried ${JSON.stringify(keyed.retried)}`,
    );
    for (const server of running.values()) expect(server.output()).not.toContain(db.password);
  });
});

/**
 * A subscriber that follows the list from `cursor` and, whenever its stream ends or cannot start,
 * comes back after a moment with the last id it got, until `going()` turns false and it has got
 * up to the id `finish` is given.
 */
function follower(baseUrl: () => string, cursor: number, going: () => boolean) {
  const ids: number[] = [];
  let target = Number.POSITIVE_INFINITY;
  const run = (async () => {
    while (going() || (ids.at(-1) ?? cursor) < target) {
      const last = ids.at(-1) ?? cursor;
      const res = await fetch(`${baseUrl()}/tasks/events`, {
        headers: { "Last-Event-ID": String(last) },
        signal: AbortSignal.timeout(3_000),
      }).catch(() => undefined);
      if (res?.status === 200 && res.body !== null) {
        const decoder = new TextDecoder();
        let text = "";
        try {
          for await (const chunk of res.body) {
            text += decoder.decode(chunk, { stream: true });
            const end = text.lastIndexOf("\n\n");
            for (const match of text.slice(0, end + 2).matchAll(/^id: (\d+)$/gm)) ids.push(Number(match[1]));
            text = text.slice(end + 2);
            if (!going() && (ids.at(-1) ?? cursor) >= target) break;
          }
        } catch {
          // The stream ended mid-way (the database went, or the timeout): come back with the cursor.
        }
      } else {
        await res?.body?.cancel();
      }
      await sleep(100);
    }
  })();
  return {
    /** Resolves with every id got, once the subscriber has got up to `lastId`. */
    async finish(lastId: number): Promise<number[]> {
      target = lastId;
      await run;
      return ids;
    },
  };
}

/** Milliseconds from `since` until `server` answers a GET with 200, asking every 50 ms. */
async function firstSuccess({ server }: NamedServer, since: number): Promise<number> {
  while (Date.now() - since < RECOVERY_MS) {
    const res = await fetch(`${server().baseUrl}/tasks`).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return Date.now() - since;
    await sleep(50);
  }
  return Number.POSITIVE_INFINITY;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
