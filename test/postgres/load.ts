import { expect } from "vitest";
import type { Task } from "../sqlite/durable-server.ts";
import type { RunningServer, Runtime } from "../support/server.ts";

const REQUEST_TIMEOUT_MS = 30_000;

/** One answer the load received, with when it was asked and answered. */
export interface Exchange {
  readonly server: string;
  readonly method: "GET" | "POST";
  readonly status: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly retryAfter: string | null;
  readonly body: string;
}

/** A server under load, named for the messages. */
export interface NamedServer {
  readonly name: string;
  readonly server: () => RunningServer;
}

/** The server of each runtime, as `running` will hold it once started, named after its runtime. */
export function namedServers(
  runtimes: readonly Runtime[],
  running: ReadonlyMap<Runtime, RunningServer>,
): NamedServer[] {
  return runtimes.map((runtime) => ({
    name: runtime,
    server: () => {
      const server = running.get(runtime);
      if (server === undefined) throw new Error(`The ${runtime} server did not start`);
      return server;
    },
  }));
}

/** What a run of {@link runLoad} sent and got. */
export interface LoadRecord {
  readonly exchanges: Exchange[];
  /** Tasks returned 200, by id. */
  readonly acknowledged: Map<number, Task>;
  /** Every title sent, with the status its POST got. */
  readonly sent: Map<string, number>;
  /** Broken promises seen during the run, such as a GET that misses a task acknowledged before it started. */
  readonly problems: string[];
}

/**
 * Mixed load from `clients` concurrent clients until `running()` turns false: each POSTs a task
 * with a title of its own to one server and, once it is returned 200, GETs the list from
 * another, which must already hold it (read your writes across processes). A 503 pauses the
 * client briefly, as its Retry-After asks, then it goes on.
 */
export async function runLoad(
  servers: readonly NamedServer[],
  clients: number,
  prefix: string,
  running: () => boolean,
): Promise<LoadRecord> {
  const record: LoadRecord = { exchanges: [], acknowledged: new Map(), sent: new Map(), problems: [] };
  let next = 0;
  const send = async (target: NamedServer, method: "GET" | "POST", body?: string): Promise<Exchange> => {
    const startedAt = Date.now();
    const res = await fetch(`${target.server().baseUrl}/tasks`, {
      method,
      ...(body === undefined ? {} : { body, headers: { "Content-Type": "application/json" } }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const exchange: Exchange = {
      server: target.name,
      method,
      status: res.status,
      startedAt,
      retryAfter: res.headers.get("Retry-After"),
      body: await res.text(),
      endedAt: Date.now(),
    };
    record.exchanges.push(exchange);
    if (res.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
    return exchange;
  };
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (running()) {
        const n = next++;
        const writer = servers[n % servers.length] as NamedServer;
        const reader = servers[(n + 1 + (client % (servers.length - 1))) % servers.length] as NamedServer;
        const title = `${prefix} ${n}`;
        const task = { title, completed: n % 2 === 0 };
        const post = await send(writer, "POST", JSON.stringify(task));
        record.sent.set(title, post.status);
        if (post.status !== 200) continue;
        const created = JSON.parse(post.body) as Task;
        if (record.acknowledged.has(created.id)) record.problems.push(`id ${created.id} was answered twice`);
        record.acknowledged.set(created.id, created);
        const get = await send(reader, "GET");
        if (get.status !== 200) continue;
        const seen = (JSON.parse(get.body) as Task[])[created.id - 1];
        if (JSON.stringify(seen) !== JSON.stringify(created)) {
          record.problems.push(
            `task ${created.id}, acknowledged by ${writer.name}, was not in a GET of ${reader.name} started after it (found ${JSON.stringify(seen)})`,
          );
        }
      }
    }),
  );
  return record;
}

/** Reads the list from every server once the load is over: they must serve the same bytes with the same ETag. */
export async function settledList(servers: readonly NamedServer[]): Promise<Task[]> {
  const answers = await Promise.all(
    servers.map(async ({ server }) => {
      const res = await fetch(`${server().baseUrl}/tasks`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      expect(res.status).toBe(200);
      return { etag: res.headers.get("ETag"), text: await res.text() };
    }),
  );
  const [first] = answers;
  for (const answer of answers) expect(answer).toEqual(first);
  return JSON.parse(first?.text ?? "[]") as Task[];
}

/**
 * Checks the list after a load: ids 1 to n, each acknowledged task in it exactly as answered, no
 * title twice, and nothing the load did not send. Returns the tasks it holds whose POST was not
 * returned 200 (a connection lost after the commit leaves the client in doubt).
 */
export function checkList(tasks: readonly Task[], record: LoadRecord, prefix: string): Task[] {
  expect(tasks.map((task) => task.id)).toEqual(tasks.map((_, i) => i + 1));
  for (const [id, task] of record.acknowledged) expect(tasks[id - 1]).toEqual(task);
  const ours = tasks.filter((task) => task.title.startsWith(`${prefix} `));
  expect(new Set(ours.map((task) => task.title)).size).toBe(ours.length);
  for (const task of ours) expect(record.sent.has(task.title)).toBe(true);
  return ours.filter((task) => record.sent.get(task.title) !== 200);
}
