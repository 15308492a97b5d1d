// The create-and-delete scenario: a fresh service creates and deletes a task, pair after pair, and
// its resident memory after many pairs is compared with the same process's after a few.

import { MAX_TOMBSTONES } from "../../src/list/change-log.ts";
import { settledMemoryKib } from "../../test/support/process-memory.ts";
import { startServer } from "../../test/support/server.ts";
import { type CpuLayout, tasksetList } from "./cpus.ts";
import { INITIAL_TASKS } from "./measurements.ts";
import { median } from "./summary.ts";
import { table } from "./table.ts";
import { ISSUES, type TargetCheck } from "./targets.ts";
import { runWrk } from "./wrk.ts";

/** The runtimes the scenario runs on: those the tests' launcher starts as processes of their own. */
export type ChurnRuntime = "node" | "bun" | "deno";

/**
 * Pairs before the baseline reading: twice the deletions a list remembers, so that it holds as many
 * as it ever will and has dropped some, and each runtime has compiled its hot paths.
 */
const BASELINE_PAIRS = 2 * MAX_TOMBSTONES;
/** What docs/live-changes.md says a remembered deletion takes in a process's copy of the list. */
const BYTES_PER_DELETION = 17;
/** How long the memory is watched after a run, its lowest reading kept: what the runtime frees just after the load is not counted. */
const SETTLE_MS = 5_000;

/**
 * One trial: the server's resident memory fresh, after the baseline pairs, and after all of them;
 * on Node also its heap after a full collection at the last two (V8's used heap and the
 * ArrayBuffers' backing stores, which hold the list's chunks).
 */
export interface ChurnReading {
  readonly runtime: ChurnRuntime;
  readonly repeat: number;
  readonly pairs: number;
  readonly pairsPerSecond: number;
  readonly rssFreshKib: number;
  readonly rssBaselineKib: number;
  readonly rssAfterKib: number;
  readonly heapBaselineKib: number | undefined;
  readonly heapAfterKib: number | undefined;
}

/**
 * Starts the service on `runtime` through the tests' launcher (LOG_LEVEL=off: the launcher keeps
 * what a server prints, and a log line per request would be two million of them), runs
 * {@link BASELINE_PAIRS} pairs, reads its memory, runs the rest of `pairs`, and reads it again.
 */
export async function runChurnTrial(
  runtime: ChurnRuntime,
  pairs: number,
  repeat: number,
  load: { readonly connections: number; readonly threads: number; readonly layout: CpuLayout },
): Promise<ChurnReading> {
  // Node's inspector, on a port of its own, lets the harness collect the garbage and read the heap.
  const inspect = runtime === "node" ? { NODE_OPTIONS: "--inspect=127.0.0.1:0" } : {};
  const server = await startServer(runtime, { LOG_LEVEL: "off", ...inspect });
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
    return {
      runtime,
      repeat,
      pairs,
      pairsPerSecond,
      rssFreshKib,
      rssBaselineKib,
      rssAfterKib,
      heapBaselineKib,
      heapAfterKib,
    };
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

/** The medians of each runtime's trials, in MiB and pairs per second. */
function churnRows(readings: readonly ChurnReading[]) {
  return (["node", "bun", "deno"] as const).flatMap((runtime) => {
    const trials = readings.filter((r) => r.runtime === runtime);
    if (trials.length === 0) return [];
    const med = (pick: (r: ChurnReading) => number) => median(trials.map(pick));
    return [
      {
        runtime,
        trials: trials.length,
        pairs: trials[0]?.pairs ?? 0,
        pairsPerSecond: med((r) => r.pairsPerSecond),
        fresh: med((r) => r.rssFreshKib) / 1024,
        baseline: med((r) => r.rssBaselineKib) / 1024,
        after: med((r) => r.rssAfterKib) / 1024,
        grew: med((r) => r.rssAfterKib - r.rssBaselineKib) / 1024,
        heapGrew: trials.every((r) => r.heapAfterKib !== undefined && r.heapBaselineKib !== undefined)
          ? med((r) => (r.heapAfterKib ?? 0) - (r.heapBaselineKib ?? 0)) / 1024
          : undefined,
      },
    ];
  });
}

/** What the deletions remembered may take, in MiB: all of them, which the baseline already holds. */
const PROMISED_MIB = (MAX_TOMBSTONES * BYTES_PER_DELETION) / 2 ** 20;

/**
 * Issue 27's memory target: the pairs after the baseline leave the heap, after a collection, no
 * larger than the deletions remembered may make it. Where no heap was read, the RSS is shown
 * unchecked: a runtime's heap grows and shrinks under load by more than the target's bytes.
 */
export function checkChurnTargets(readings: readonly ChurnReading[]): TargetCheck[] {
  const kib = (mib: number) => `${mib >= 0 ? "+" : ""}${(mib * 1024).toFixed(0)} KiB`;
  return churnRows(readings).map((r) => ({
    issue: ISSUES.changes,
    target: `Memory after ${r.pairs.toLocaleString("en")} create-and-delete pairs ≤ after ${BASELINE_PAIRS.toLocaleString("en")} + ${Math.round(PROMISED_MIB * 1024)} KiB (${MAX_TOMBSTONES.toLocaleString("en")} deletions remembered × ${BYTES_PER_DELETION} bytes)`,
    subject: r.runtime,
    value:
      r.heapGrew === undefined ? `RSS ${kib(r.grew)}, heap not read` : `heap ${kib(r.heapGrew)} (RSS ${kib(r.grew)})`,
    met: r.heapGrew === undefined ? undefined : r.heapGrew <= PROMISED_MIB,
  }));
}

/** The scenario's section of the results, or nothing when the run had none. */
export function churnSection(readings: readonly ChurnReading[]): string {
  const rows = churnRows(readings);
  if (rows.length === 0) return "";
  const mib = (x: number) => x.toFixed(1);
  return `
## Create and delete

${table(
  [
    "Runtime",
    "Pairs",
    "pairs/s",
    "RSS fresh MiB",
    `after ${BASELINE_PAIRS.toLocaleString("en")} MiB`,
    "after all MiB",
    "RSS growth KiB",
    "heap growth KiB",
  ],
  rows.map((r) => [
    r.runtime,
    `${r.pairs.toLocaleString("en")} × ${r.trials}`,
    Math.round(r.pairsPerSecond).toLocaleString("en"),
    mib(r.fresh),
    mib(r.baseline),
    mib(r.after),
    (r.grew * 1024).toFixed(0),
    r.heapGrew === undefined ? "–" : (r.heapGrew * 1024).toFixed(0),
  ]),
  1,
)}

A fresh service (LOG_LEVEL=off, started as the tests start it) creates a task and deletes it, pair after pair, from wrk
(\`wrk/create-delete.lua\`), the list back at its first tasks after each run. Its resident memory, the lowest over ${SETTLE_MS / 1000} s
after the load stopped: fresh, after ${BASELINE_PAIRS.toLocaleString("en")} pairs (the list then remembers ${MAX_TOMBSTONES.toLocaleString("en")} deletions, as many as it ever will),
and after all the pairs; growth is the last minus the second, median of the trials' own. On Node the heap is read too, through
the inspector (\`--inspect\`), after a full collection: V8's used heap plus the ArrayBuffers' backing stores, where the list's
chunks are. A list that kept every deletion would grow by about ${BYTES_PER_DELETION} bytes a pair past the baseline.
`;
}
