// One trial of the feed scenario (issue 38) on one runtime: small GETs while many subscribers catch
// up, what one catch-up costs beside a GET of the list, and what stalled subscribers cost a PATCH.
import { lastTaskId, postMany } from "../lib/http.ts";
import type { BenchServer } from "../lib/servers.ts";
import { INITIAL_TASKS, type Runtime } from "../lib/subjects.ts";
import { NEW_TASK_BODY, type RunSettings, startSubject } from "../lib/trial.ts";
import { catchUps, cpuMsOver, getLists, getsWhileCatchingUp } from "./catch-up.ts";
import type { Transport } from "./protocol.ts";
import { fillForStalls, patchesWithStalls, type StalledReading } from "./stalled.ts";

/** How much each part of a feed trial does. */
export interface FeedCounts {
  /** Tasks the subscribers catch up on, and the GETs and catch-ups of each kind whose CPU is compared. */
  readonly catchUpTasks: number;
  readonly gets: number;
  readonly catchUps: number;
  /** Tasks, subscribers and GETs of task 2 of the GETs during catch-ups. */
  readonly busyTasks: number;
  readonly busySubscribers: number;
  readonly busyGets: number;
  /** Stalled subscribers of each kind, and PATCHes per run. */
  readonly stalled: number;
  readonly patches: number;
}

/** The counts of a run: `--quick` does less of each, `--stalled` sets the stalled crowd. */
export function feedCounts(quick: boolean, stalled: number | undefined): FeedCounts {
  return quick
    ? {
        catchUpTasks: 10_000,
        gets: 10,
        catchUps: 3,
        busyTasks: 20_000,
        busySubscribers: 50,
        busyGets: 100,
        stalled: stalled ?? 200,
        patches: 500,
      }
    : {
        catchUpTasks: 100_000,
        gets: 20,
        catchUps: 5,
        busyTasks: 20_000,
        busySubscribers: 50,
        busyGets: 200,
        stalled: stalled ?? 1_000,
        patches: 2_000,
      };
}

/** What one feed trial measured; ratios are left to the medians. */
export interface FeedReading {
  readonly runtime: Runtime;
  readonly catchUpTasks: number;
  readonly listBytes: number;
  /** The server's CPU per GET of the list, and per catch-up from 0 of each kind, in ms. */
  readonly getCpuMs: number;
  readonly sseCpuMs: number;
  readonly wsCpuMs: number;
  /** Bytes each catch-up received. */
  readonly sseBytes: number;
  readonly wsBytes: number;
  readonly busyTasks: number;
  readonly busySubscribers: number;
  readonly busyGets: number;
  /** GETs of task 2 with no subscriber, then during the catch-ups. */
  readonly idleGetP50Ms: number;
  readonly idleGetP99Ms: number;
  readonly busyGetP50Ms: number;
  readonly busyGetP99Ms: number;
  readonly busyCatchUps: number;
  readonly busyServerCoreOther: number;
  readonly stalled: number;
  /** Subscribers that stopped reading: SSE, and WebSocket where the runtime says what a socket holds. */
  readonly sse: StalledReading;
  readonly ws: StalledReading | undefined;
}

/** Stalled WebSockets where the feed can see them full: a Worker cannot see what waits on a WebSocket. */
function stallTransports(runtime: Runtime): Transport[] {
  return runtime === "workerd" ? ["sse"] : ["sse", "ws"];
}

/**
 * One trial on `runtime`: a fresh service grown to the busy size for the GETs during catch-ups, then
 * to the catch-up size for the CPU of GETs and catch-ups; then a fresh one for the stalled subscribers.
 */
export async function runFeedTrial(runtime: Runtime, counts: FeedCounts, run: RunSettings): Promise<FeedReading> {
  let server: BenchServer | undefined;
  try {
    server = await startSubject("app", runtime, run);
    await postMany(server.url, NEW_TASK_BODY, counts.busyTasks - INITIAL_TASKS);
    const { busyTasks, busySubscribers, busyGets } = counts;
    const busy = await getsWhileCatchingUp(server, run.layout, busyGets, busySubscribers, busyTasks);

    await postMany(server.url, NEW_TASK_BODY, counts.catchUpTasks - busyTasks);
    // A fresh list with POSTs only: the last change is the last task's id.
    const last = await lastTaskId(server.url);
    const listBytes = (await (await fetch(server.url)).arrayBuffer()).byteLength;
    // Warm-up: each runtime compiles the paths of a GET and of each catch-up before they are measured.
    await getLists(server, 2, listBytes);
    for (const transport of ["sse", "ws"] as const) await catchUps(server, transport, 1, last);
    const live = server;
    const getCpuMs = (await cpuMsOver(live.pid, () => getLists(live, counts.gets, listBytes))) / counts.gets;
    const perCatchUp = async (transport: Transport) => {
      let bytes = 0;
      const ms = await cpuMsOver(live.pid, async () => {
        bytes = await catchUps(live, transport, counts.catchUps, last);
      });
      return { ms: ms / counts.catchUps, bytes };
    };
    const sse = await perCatchUp("sse");
    const ws = await perCatchUp("ws");
    await server.stop();
    server = undefined;

    server = await startSubject("app", runtime, run);
    const ids = await fillForStalls(server);
    const stalled = await patchesWithStalls(server, ids, stallTransports(runtime), counts.stalled, counts.patches, run);
    if (stalled.sse === undefined) throw new Error("No stalled SSE subscribers were measured");
    return {
      runtime,
      catchUpTasks: counts.catchUpTasks,
      listBytes,
      getCpuMs,
      sseCpuMs: sse.ms,
      wsCpuMs: ws.ms,
      sseBytes: sse.bytes,
      wsBytes: ws.bytes,
      busyTasks,
      busySubscribers,
      busyGets: busy.gets,
      idleGetP50Ms: busy.idleP50Ms,
      idleGetP99Ms: busy.idleP99Ms,
      busyGetP50Ms: busy.busyP50Ms,
      busyGetP99Ms: busy.busyP99Ms,
      busyCatchUps: busy.catchUps,
      busyServerCoreOther: busy.serverCoreOther,
      stalled: counts.stalled,
      sse: stalled.sse,
      ws: stalled.ws,
    };
  } finally {
    await server?.stop();
  }
}
