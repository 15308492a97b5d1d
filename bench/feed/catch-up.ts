// Catching up from 0: what one subscriber's catch-up costs the server beside a GET of the same list,
// and how long a small GET waits while many subscribers catch up at once.
import { setTimeout as sleep } from "node:timers/promises";
import { lastTaskId } from "../lib/http.ts";
import { CLOCK_TICKS, type CpuLayout, coreTicks, coreTicksBetween, cpuTicks } from "../lib/load.ts";
import type { BenchServer } from "../lib/servers.ts";
import { NEW_TASK_BODY } from "../lib/trial.ts";
import { PostClient } from "../live/post-client.ts";
import { now } from "../live/protocol.ts";
import { percentile } from "../live/trial.ts";
import { FeedClient } from "./clients.ts";
import type { Transport } from "./protocol.ts";
import { portQueues } from "./sockets.ts";

/** After a measured series, the server gets this long to finish what it left (a collection) inside the measure. */
const SETTLE_MS = 300;
/**
 * The GETs during catch-ups stop after this long if they have not all been made: each may wait
 * seconds, and one still waiting then counts with its wait so far.
 */
const BUSY_GETS_MS = 30_000;
/** A catch-up of 100,000 tasks takes seconds on a busy machine; a minute more covers a slow one. */
const CATCH_UP_TIMEOUT_MS = 120_000;

/** The server's CPU time over `work`, and over {@link SETTLE_MS} after it, in ms. */
export async function cpuMsOver(pid: number, work: () => Promise<unknown>): Promise<number> {
  const before = cpuTicks(pid);
  await work();
  await sleep(SETTLE_MS);
  return ((cpuTicks(pid) - before) / CLOCK_TICKS) * 1000;
}

/** The port of a server the bench started. */
export function portOf(server: BenchServer): number {
  return Number(new URL(server.url).port);
}

/** GETs the whole list `count` times, one after another, checking that each carried all `listBytes`. */
export async function getLists(server: BenchServer, count: number, listBytes: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(server.url);
    const bytes = (await response.arrayBuffer()).byteLength;
    if (response.status !== 200 || bytes !== listBytes) {
      throw new Error(`GET ${server.url} answered ${response.status} with ${bytes} bytes, not the list's ${listBytes}`);
    }
  }
}

/**
 * `count` subscribers over `transport`, one after another, each catching up from 0 until the event
 * of change `last`; resolves with the bytes each received.
 */
export async function catchUps(server: BenchServer, transport: Transport, count: number, last: number) {
  const client = new FeedClient({ type: "catch-up", port: portOf(server), transport, parallel: 1, count, last });
  try {
    return (await client.report("caught-up", CATCH_UP_TIMEOUT_MS * count)).bytesEach;
  } finally {
    await client.close();
  }
}

/** What one catch-up from 0 costs the server beside one GET of the same list. */
export interface CatchUpReading {
  readonly tasks: number;
  readonly listBytes: number;
  /** The server's CPU per GET of the list, and per catch-up from 0 of each kind, in ms. */
  readonly getCpuMs: number;
  readonly sseCpuMs: number;
  readonly wsCpuMs: number;
  /** Bytes each catch-up received. */
  readonly sseBytes: number;
  readonly wsBytes: number;
}

/**
 * The server's CPU per GET of its whole list of `tasks` tasks (`gets` of them, one after another)
 * and per catch-up from 0 over SSE and over a WebSocket (`count` of each), after a warm-up of each.
 */
export async function catchUpCost(
  server: BenchServer,
  tasks: number,
  gets: number,
  count: number,
): Promise<CatchUpReading> {
  // A list grown by POSTs only: the last change is the last task's id.
  const last = await lastTaskId(server.url);
  const listBytes = (await (await fetch(server.url)).arrayBuffer()).byteLength;
  // Warm-up: each runtime compiles the paths of a GET and of each catch-up before they are measured.
  await getLists(server, 2, listBytes);
  for (const transport of ["sse", "ws"] as const) await catchUps(server, transport, 1, last);
  const getCpuMs = (await cpuMsOver(server.pid, () => getLists(server, gets, listBytes))) / gets;
  const perCatchUp = async (transport: Transport) => {
    let bytes = 0;
    const ms = await cpuMsOver(server.pid, async () => {
      bytes = await catchUps(server, transport, count, last);
    });
    return { ms: ms / count, bytes };
  };
  const sse = await perCatchUp("sse");
  const ws = await perCatchUp("ws");
  return { tasks, listBytes, getCpuMs, sseCpuMs: sse.ms, wsCpuMs: ws.ms, sseBytes: sse.bytes, wsBytes: ws.bytes };
}

/** What {@link getsWhileCatchingUp} measured. */
export interface BusyGets {
  /** GETs made during the catch-ups: fewer than asked when they took more than {@link BUSY_GETS_MS}. */
  readonly gets: number;
  readonly idleP50Ms: number;
  readonly idleP99Ms: number;
  readonly busyP50Ms: number;
  readonly busyP99Ms: number;
  /** Catch-ups that ended during the GETs: each subscriber that is done starts again from 0. */
  readonly catchUps: number;
  /** Share of the server core's time busy but not charged to the server, during the GETs beside the catch-ups. */
  readonly serverCoreOther: number;
}

/**
 * `gets` GETs of task 2, one after another over one kept-alive connection, first alone, then while
 * `subscribers` subscribers over `transport` catch up from 0 to change `last`, each starting again
 * when done; each series stops after {@link BUSY_GETS_MS} if it is not done by then.
 */
export async function getsWhileCatchingUp(
  server: BenchServer,
  layout: CpuLayout,
  gets: number,
  subscribers: number,
  last: number,
  transport: Transport,
): Promise<BusyGets> {
  const port = portOf(server);
  const getter = await PostClient.connect(port, NEW_TASK_BODY);
  const timeGets = async () => {
    const times: number[] = [];
    const deadline = now() + BUSY_GETS_MS;
    while (times.length < gets && now() < deadline) {
      const sentAt = now();
      const answer = await Promise.race([getter.get(2), sleep(deadline - sentAt).then(() => undefined)]);
      // A GET still unanswered when the series ends counts with its wait so far, and ends it.
      times.push((answer?.answeredAt ?? now()) - sentAt);
      if (answer === undefined) break;
    }
    return Float64Array.from(times).sort();
  };
  let client: FeedClient | undefined;
  try {
    const idle = await timeGets();
    client = new FeedClient({ type: "catch-up", port, transport, parallel: subscribers, count: 0, last });
    // The GETs start once every subscriber's connection is the server's, beside the GETs' own.
    const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
    while (portQueues(port).connections < subscribers + 1) {
      if (Date.now() > deadline) throw new Error(`${subscribers} subscribers did not connect within a minute`);
      await sleep(10);
    }
    const coresBefore = coreTicks();
    const ticksBefore = cpuTicks(server.pid);
    const busy = await timeGets();
    const core = coreTicksBetween(coresBefore, coreTicks(), layout.server);
    const serverTicks = cpuTicks(server.pid) - ticksBefore;
    client.stop();
    const { completed } = await client.report("caught-up", CATCH_UP_TIMEOUT_MS);
    return {
      gets: busy.length,
      idleP50Ms: percentile(idle, 0.5),
      idleP99Ms: percentile(idle, 0.99),
      busyP50Ms: percentile(busy, 0.5),
      busyP99Ms: percentile(busy, 0.99),
      catchUps: completed,
      serverCoreOther: core.total === 0 ? 0 : Math.max(0, (core.busy - serverTicks) / core.total),
    };
  } finally {
    getter.close();
    await client?.close();
  }
}
