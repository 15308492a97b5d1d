// The create-and-delete scenario: a fresh service creates and deletes a task, pair after pair, and
// its resident memory after many pairs is compared with the same process's after a few.

import { MAX_TOMBSTONES } from "../../src/list/change-log.ts";
import { settledMemoryKib } from "../../test/support/process-memory.ts";
import { startServer } from "../../test/support/server.ts";
import { type CpuLayout, runWrk, tasksetList } from "./load.ts";
import { INITIAL_TASKS } from "./subjects.ts";

/** The runtimes the scenario runs on: those the tests' launcher starts as processes of their own. */
export type ChurnRuntime = "node" | "bun" | "deno";

/**
 * Pairs before the baseline reading: twice the deletions a list remembers, so that it holds as many
 * as it ever will and has dropped some, and each runtime has compiled its hot paths.
 */
export const BASELINE_PAIRS = 2 * MAX_TOMBSTONES;
/** What docs/live-changes.md says a remembered deletion takes in a process's copy of the list. */
export const BYTES_PER_DELETION = 17;
/** How long the memory is watched after a run, its lowest reading kept: what the runtime frees just after the load is not counted. */
const SETTLE_MS = 5_000;

/**
 * One trial: the server's resident memory fresh, after the baseline pairs, and after all of them;
 * on Node also its heap after a full collection at the last two (V8's used heap and the
 * ArrayBuffers' backing stores, which hold the list's chunks). Growths are from the baseline.
 */
export interface ChurnReading {
  readonly runtime: ChurnRuntime;
  readonly pairs: number;
  readonly pairsPerSecond: number;
  readonly rssFreshKib: number;
  readonly rssBaselineKib: number;
  readonly rssAfterKib: number;
  readonly rssGrowthKib: number;
  readonly heapGrowthKib: number | undefined;
}

/**
 * Starts the service on `runtime` through the tests' launcher (LOG_LEVEL=off: the launcher keeps
 * what a server prints, and a log line per request would be two million of them), runs
 * {@link BASELINE_PAIRS} pairs, reads its memory, runs the rest of `pairs`, and reads it again.
 */
export async function runChurnTrial(
  runtime: ChurnRuntime,
  pairs: number,
  load: { readonly connections: number; readonly threads: number; readonly layout: CpuLayout },
): Promise<ChurnReading> {
  // Node's inspector, on a port of its own, lets the harness collect the garbage and read the heap.
  const inspect = runtime === "node" ? { NODE_OPTIONS: "--inspect=127.0.0.1:0" } : {};
  const cpus = tasksetList(load.layout, load.layout.server);
  const server = await startServer(runtime, { LOG_LEVEL: "off", ...inspect }, cpus === undefined ? {} : { cpus });
  try {
    const url = `${server.baseUrl}/tasks`;
    const rssFreshKib = await settledMemoryKib(server.memoryKib, SETTLE_MS);
    const churn = async (count: number) => {
      const wrk = await runWrk(
        {
          url,
          script: "create-delete",
          // The count ends the run; this only bounds a server that stopped answering.
          seconds: 3_600,
          threads: load.threads,
          connections: load.connections,
          env: { BENCH_BODY: '{"title":"Created to be deleted","completed":false}', BENCH_PAIRS: String(count) },
        },
        tasksetList(load.layout, load.layout.load),
      );
      await deleteAfter(url, INITIAL_TASKS);
      return wrk;
    };
    await churn(BASELINE_PAIRS);
    // The collection first (on Node), so that the RSS is read after it.
    const heapBaselineKib = await heapAfterCollection(server.output());
    const rssBaselineKib = await settledMemoryKib(server.memoryKib, SETTLE_MS);
    const rest = await churn(pairs - BASELINE_PAIRS);
    const heapAfterKib = await heapAfterCollection(server.output());
    const rssAfterKib = await settledMemoryKib(server.memoryKib, SETTLE_MS);
    const pairsPerSecond = rest.requests / 2 / (rest.durationUs / 1e6);
    const heapGrowthKib =
      heapAfterKib === undefined || heapBaselineKib === undefined ? undefined : heapAfterKib - heapBaselineKib;
    const rssGrowthKib = rssAfterKib - rssBaselineKib;
    return { runtime, pairs, pairsPerSecond, rssFreshKib, rssBaselineKib, rssAfterKib, rssGrowthKib, heapGrowthKib };
  } finally {
    await server.stop();
  }
}

/**
 * Through the inspector whose address a Node server printed: a full garbage collection, then the
 * heap V8 uses plus the ArrayBuffers' backing stores, in KiB; undefined for a server without one.
 */
async function heapAfterCollection(output: string): Promise<number | undefined> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
  if (url === undefined) return undefined;
  const socket = new WebSocket(url);
  await new Promise((opened, failed) => {
    socket.onopen = opened;
    socket.onerror = () => failed(new Error(`Could not reach the server's inspector at ${url}`));
  });
  let last = 0;
  const call = (method: string) =>
    new Promise<Record<string, number>>((answered) => {
      const id = ++last;
      socket.addEventListener("message", function reply(event) {
        const message = JSON.parse(String(event.data)) as { id?: number; result: Record<string, number> };
        if (message.id !== id) return;
        socket.removeEventListener("message", reply);
        answered(message.result);
      });
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call("HeapProfiler.collectGarbage");
    const usage = await call("Runtime.getHeapUsage");
    return ((usage.usedSize ?? 0) + (usage.backingStorageSize ?? 0)) / 1024;
  } finally {
    socket.close();
  }
}

/** Deletes the tasks after id `keep` that a run's last pairs left in flight, so the list is back to its first tasks. */
async function deleteAfter(url: string, keep: number): Promise<void> {
  const tasks = (await (await fetch(url)).json()) as { id: number }[];
  for (const { id } of tasks.filter((t) => t.id > keep)) {
    const response = await fetch(`${url}/${id}`, { method: "DELETE" });
    await response.arrayBuffer();
    if (response.status !== 204) throw new Error(`DELETE ${url}/${id} answered ${response.status}, not 204`);
  }
}
