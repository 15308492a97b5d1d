// What subscribers that stopped reading cost a write: the server's CPU per PATCH with none, then with
// a crowd of them, on a list whose first tasks are too big for the kernel's socket buffers to hold.
import { setTimeout as sleep } from "node:timers/promises";
import { postMany } from "../lib/http.ts";
import { CLOCK_TICKS, cpuTicks, runWrk, tasksetList } from "../lib/load.ts";
import type { BenchServer } from "../lib/servers.ts";
import { INITIAL_TASKS } from "../lib/subjects.ts";
import { NEW_TASK_BODY, type RunSettings } from "../lib/trial.ts";
import { portOf } from "./catch-up.ts";
import { StallClient } from "./clients.ts";
import type { Transport } from "./protocol.ts";
import { portQueues } from "./sockets.ts";

/**
 * The list's first tasks after the initial two: 8 of 200 KiB, 1.6 MiB, which a subscriber from 0
 * gets first: far more than the kernel takes of a connection that is not read (about 220 KiB with
 * stall-client.ts's socket options) and the server's own buffers, so that the feed sees it full.
 */
const BIG_TASKS = 8;
const BIG_TASK_BODY = JSON.stringify({ title: "x".repeat(200 * 1024), completed: false });
/** The small tasks after them, which the PATCHes rename: 1,000 of about 60 bytes, a few KiB of changes a run. */
const SMALL_TASKS = 1_000;
/** PATCHes before the first measure, so that each runtime has compiled the route and settled its heap. */
const WARM_PATCHES = 2_000;
/**
 * A PATCH run ends on its count, or after this long: Node pings a WebSocket every 20 s and drops one
 * that has not answered the last ping, so a stalled socket may be gone 20 s after it opened.
 */
const PATCH_SECONDS = 10;
/** How long the server's CPU is read with the stalled subscribers and nothing else. */
const IDLE_MS = 2_000;
/** Stalled subscribers are settled once the kernel holds no more for them and the server's core is this idle. */
const SETTLED_CPU_SHARE = 0.2;

/** The figures of one kind of stalled subscriber. */
export interface StalledReading {
  /** PATCHes of the two runs with none, and the mean of their CPU per PATCH; then the same with the stalled subscribers. */
  readonly patchesNone: number;
  readonly cpuNoneUs: number;
  readonly patchesStalled: number;
  readonly cpuStalledUs: number;
  /** The server's CPU with them and no requests, in ms per second. */
  readonly idleCpuMsPerS: number;
  /** Bytes the kernel held for each (the server's send queue and the client's receive queue), in KiB. */
  readonly heldKibEach: number;
  /** The server's resident memory they added, per subscriber, in KiB. */
  readonly rssKibEach: number;
  /** Of them, those the server still held once the PATCHes were done. */
  readonly connectedAfter: number;
}

/** Fills a fresh server's list: the big tasks first, then the small ones; returns the ids the PATCHes rename. */
export async function fillForStalls(server: BenchServer): Promise<{ first: number; last: number }> {
  await postMany(server.url, BIG_TASK_BODY, BIG_TASKS, 4);
  await postMany(server.url, NEW_TASK_BODY, SMALL_TASKS);
  const first = INITIAL_TASKS + BIG_TASKS + 1;
  return { first, last: first + SMALL_TASKS - 1 };
}

/** A wrk run of about `count` PATCHes of the small tasks `ids`: the PATCHes answered and the server's CPU per PATCH. */
async function patchRun(server: BenchServer, ids: { first: number; last: number }, count: number, run: RunSettings) {
  const env = { BENCH_FIRST: String(ids.first), BENCH_TASKS: String(ids.last), BENCH_PATCHES: String(count) };
  const load = { url: server.url, script: "patch", seconds: PATCH_SECONDS, threads: 1, connections: 8, env } as const;
  const before = cpuTicks(server.pid);
  const wrk = await runWrk(load, tasksetList(run.layout, run.layout.load));
  const micros = ((cpuTicks(server.pid) - before) / CLOCK_TICKS) * 1e6;
  const errors = Object.values(wrk.errors).reduce((a, b) => a + b, 0);
  if (errors > 0 || wrk.requests === 0) throw new Error(`${errors} of ${wrk.requests} PATCHes failed on ${server.url}`);
  return { patches: wrk.requests, cpuUs: micros / wrk.requests };
}

/** Waits until the kernel holds no more for the server's connections and its core is nearly idle. */
async function settled(server: BenchServer): Promise<void> {
  const port = portOf(server);
  const deadline = Date.now() + 120_000;
  let held = portQueues(port).heldBytes;
  for (let calm = 0; calm < 2; ) {
    if (Date.now() > deadline) throw new Error("The stalled subscribers' connections did not settle within 2 minutes");
    const ticks = cpuTicks(server.pid);
    await sleep(500);
    const share = (cpuTicks(server.pid) - ticks) / CLOCK_TICKS / 0.5;
    const now = portQueues(port).heldBytes;
    calm = now === held && share <= SETTLED_CPU_SHARE ? calm + 1 : 0;
    held = now;
  }
}

type PatchRun = Awaited<ReturnType<typeof patchRun>>;

/**
 * A PATCH run with `count` subscribers over `transport` that connected from 0 and stopped reading
 * after their first bytes, and what they hold and cost with no request; `none` is the runs with none
 * just before and just after, whose mean is the reference: the server's CPU per PATCH drifts as a
 * runtime compiles and collects, and a drift in time cancels out of the two.
 */
async function withStalls(
  server: BenchServer,
  transport: Transport,
  count: number,
  measure: () => Promise<PatchRun>,
): Promise<{
  stalled: PatchRun;
  figures: Omit<StalledReading, "patchesNone" | "cpuNoneUs" | "patchesStalled" | "cpuStalledUs">;
}> {
  const port = portOf(server);
  const rssBefore = server.memoryKib();
  let client: StallClient | undefined;
  try {
    client = await StallClient.open(port, transport, count);
    await settled(server);
    const held = portQueues(port, client.ports).heldBytes;
    const rssKibEach = (server.memoryKib() - rssBefore) / count;
    const ticks = cpuTicks(server.pid);
    await sleep(IDLE_MS);
    const idleCpuMsPerS = ((cpuTicks(server.pid) - ticks) / CLOCK_TICKS / (IDLE_MS / 1000)) * 1000;
    const stalled = await measure();
    const connectedAfter = portQueues(port, client.ports).connections;
    return { stalled, figures: { idleCpuMsPerS, heldKibEach: held / count / 1024, rssKibEach, connectedAfter } };
  } finally {
    await client?.close();
    await settled(server);
  }
}

/**
 * PATCHes with no subscriber and with `count` stalled subscribers of each of `transports` in turn,
 * each stalled run between two runs with none.
 */
export async function patchesWithStalls(
  server: BenchServer,
  ids: { first: number; last: number },
  transports: readonly Transport[],
  count: number,
  patches: number,
  run: RunSettings,
): Promise<Partial<Record<Transport, StalledReading>>> {
  const measure = () => patchRun(server, ids, patches, run);
  await patchRun(server, ids, WARM_PATCHES, run);
  let before = await measure();
  const readings: Partial<Record<Transport, StalledReading>> = {};
  for (const transport of transports) {
    const { stalled, figures } = await withStalls(server, transport, count, measure);
    const after = await measure();
    readings[transport] = {
      patchesNone: before.patches + after.patches,
      cpuNoneUs: (before.cpuUs + after.cpuUs) / 2,
      patchesStalled: stalled.patches,
      cpuStalledUs: stalled.cpuUs,
      ...figures,
    };
    before = after;
  }
  return readings;
}
