// One trial of the feed scenario (issue 38) on one runtime: small GETs while many subscribers catch
// up, what one catch-up costs beside a GET of the list, and what stalled subscribers cost a PATCH.
import { postMany } from "../lib/http.ts";
import type { BenchServer } from "../lib/servers.ts";
import { INITIAL_TASKS, type Runtime, type ServerKind } from "../lib/subjects.ts";
import { NEW_TASK_BODY, type RunSettings, startSubject } from "../lib/trial.ts";
import { type CatchUpReading, catchUpCost, getsWhileCatchingUp } from "./catch-up.ts";
import type { Transport } from "./protocol.ts";
import { fillForStalls, patchesWithStalls, type StalledReading } from "./stalled.ts";

/** How much each part of a feed trial does. */
export interface FeedCounts {
  /** Tasks of the lists the subscribers catch up on, from small to large, and the GETs and catch-ups of each kind whose CPU is compared. */
  readonly catchUpTasks: readonly number[];
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
        catchUpTasks: [20_000],
        gets: 10,
        catchUps: 3,
        busyTasks: 20_000,
        busySubscribers: 50,
        busyGets: 100,
        stalled: stalled ?? 200,
        patches: 500,
      }
    : {
        catchUpTasks: [20_000, 100_000],
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
  /** The service with its list in memory, or in a Durable Object. */
  readonly server: FeedServer;
  /** A catch-up from 0 beside a GET, at each list size. */
  readonly catchUps: readonly CatchUpReading[];
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
  /** The same GETs while as many WebSocket subscribers catch up. */
  readonly busyWsGets: number;
  readonly busyWsGetP50Ms: number;
  readonly busyWsGetP99Ms: number;
  readonly busyWsCatchUps: number;
  readonly stalled: number;
  /** Subscribers that stopped reading: SSE, and WebSocket where the runtime says what a socket holds. */
  readonly sse: StalledReading;
  readonly ws: StalledReading | undefined;
}

/** The services the feed runs on. */
export type FeedServer = Extract<ServerKind, "app" | "app-durable">;

/** How a reading is named in the tables and targets: its runtime, and its Durable Object if it has one. */
export function feedLabel({ runtime, server }: Pick<FeedReading, "runtime" | "server">): string {
  return server === "app-durable" ? `${runtime}, Durable Object` : runtime;
}

/**
 * Stalled WebSockets where the feed can see them full: a Worker cannot see what waits on a
 * WebSocket; a list's Durable Object cannot either, but holds them itself, and pays for each.
 */
export function stallTransports(runtime: Runtime, server: FeedServer): Transport[] {
  return runtime === "workerd" && server === "app" ? ["sse"] : ["sse", "ws"];
}

/**
 * One trial on `runtime`: a fresh service grown to the busy size for the GETs during catch-ups, then
 * to the catch-up size for the CPU of GETs and catch-ups; then a fresh one for the stalled subscribers.
 */
export async function runFeedTrial(
  runtime: Runtime,
  kind: FeedServer,
  counts: FeedCounts,
  run: RunSettings,
): Promise<FeedReading> {
  let server: BenchServer | undefined;
  try {
    server = await startSubject(kind, runtime, run);
    await postMany(server.url, NEW_TASK_BODY, counts.busyTasks - INITIAL_TASKS);
    const { busyTasks, busySubscribers, busyGets } = counts;
    const busy = await getsWhileCatchingUp(server, run.layout, busyGets, busySubscribers, busyTasks, "sse");
    const busyWs = await getsWhileCatchingUp(server, run.layout, busyGets, busySubscribers, busyTasks, "ws");

    const catchUps: CatchUpReading[] = [];
    for (const tasks of counts.catchUpTasks) {
      await postMany(server.url, NEW_TASK_BODY, tasks - (catchUps.at(-1)?.tasks ?? busyTasks));
      // CPU is read in clock ticks of 10 ms: a shorter list gets as many more GETs and catch-ups, so
      // that each figure spans about as many ticks as the largest list's.
      const more = Math.max(1, Math.round(Math.max(...counts.catchUpTasks) / tasks));
      catchUps.push(await catchUpCost(server, tasks, counts.gets * more, counts.catchUps * more));
    }
    await server.stop();
    server = undefined;

    server = await startSubject(kind, runtime, run);
    const ids = await fillForStalls(server);
    const transports = stallTransports(runtime, kind);
    const stalled = await patchesWithStalls(server, ids, transports, counts.stalled, counts.patches, run);
    if (stalled.sse === undefined) throw new Error("No stalled SSE subscribers were measured");
    return {
      runtime,
      server: kind,
      catchUps,
      busyTasks,
      busySubscribers,
      busyGets: busy.gets,
      idleGetP50Ms: busy.idleP50Ms,
      idleGetP99Ms: busy.idleP99Ms,
      busyGetP50Ms: busy.busyP50Ms,
      busyGetP99Ms: busy.busyP99Ms,
      busyCatchUps: busy.catchUps,
      busyServerCoreOther: busy.serverCoreOther,
      busyWsGets: busyWs.gets,
      busyWsGetP50Ms: busyWs.busyP50Ms,
      busyWsGetP99Ms: busyWs.busyP99Ms,
      busyWsCatchUps: busyWs.catchUps,
      stalled: counts.stalled,
      sse: stalled.sse,
      ws: stalled.ws,
    };
  } finally {
    await server?.stop();
  }
}
