// One trial of the live scenario: a fresh server, a crowd of idle SSE subscribers, then POSTs one
// at a time, then (on the service) as many PATCHes of the tasks they created, each timed from its
// answer to its event at every subscriber; resident memory before, with and after the crowd.
import { setTimeout as sleep } from "node:timers/promises";
import { lastTaskId } from "../lib/http.ts";
import { CLOCK_TICKS, cpuTicks } from "../lib/load.ts";
import { median } from "../lib/median.ts";
import { type BenchServer, startProgram } from "../lib/servers.ts";
import { type LiveSubject, postsFor, type Runtime, runtimeOf, type ServerKind, serverOf } from "../lib/subjects.ts";
import { NEW_TASK_BODY, type RunSettings } from "../lib/trial.ts";
import { Crowd, openFilesLimit, SPARE_FILES } from "./crowd.ts";
import { PostClient } from "./post-client.ts";

/** What one live trial measured. */
export interface LiveReading {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  readonly subscribers: number;
  readonly posts: number;
  /** Events received, one per subscriber and POST when none is missed. */
  readonly events: number;
  /** Events that never came within the wait for each; received twice or not measured; streams the server ended. */
  readonly missed: number;
  readonly unexpected: number;
  readonly ended: number;
  /** From a POST's answer reaching the client to its event reaching a subscriber, over every event. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The same from a PATCH's answer to its `update` event; undefined on the plain peer, which has no PATCH. */
  readonly editP50Ms: number | undefined;
  readonly editP99Ms: number | undefined;
  /** How long opening every stream took. */
  readonly openSeconds: number;
  /** The median time from a POST's request to its answer: the server may write events first. */
  readonly postMs: number;
  /** The subscribers' server's CPU time over the POSTs and PATCHes, per event received; the same for the clients. */
  readonly serverMicrosPerEvent: number;
  readonly clientMicrosPerEvent: number;
  /** Resident memory before the streams opened, once settled, after the POSTs, after they left; not on PostgreSQL. */
  readonly rssBeforeKib: number | undefined;
  readonly rssOpenKib: number | undefined;
  readonly rssPostedKib: number | undefined;
  readonly rssLeftKib: number | undefined;
  /** What the idle streams added to the RSS, per subscriber. */
  readonly kibPerSubscriber: number | undefined;
}

/** What each PATCH of the trial sets: the POSTed tasks are not completed, so each PATCH changes its task. */
const EDIT_BODY = '{"completed":true}';
/** Subscriber places the service gets beyond the crowd's. */
const SPARE_PLACES = 100;
/** A fresh server waits this long before its memory is read, so that its start-up work is done. */
const SETTLE_START_MS = 500;
/** Idle streams wait this long before the server's memory is read: what opening them left has been collected. */
const SETTLE_OPEN_MS = 2_000;
/** After the subscribers leave, the server gets this long to let go of them before its memory is read again. */
const SETTLE_LEFT_MS = 3_000;
/** Between one POST's last event and the next POST, so that each POST meets idle subscribers. */
const SPACING_MS = 20;
/** How long the events of one POST may take before the trial moves on (and counts what never came). */
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * One trial of `subject` with `subscribers` idle subscribers on /tasks/events: opens them, reads
 * the server's memory once they have settled, POSTs tasks one at a time (to the other process on
 * PostgreSQL) and times each event from the POST's answer, then closes them and reads memory again.
 */
export async function runLiveTrial(
  subject: LiveSubject,
  subscribers: number,
  quick: boolean,
  run: RunSettings,
): Promise<LiveReading> {
  const runtime = runtimeOf(subject);
  const server = serverOf(subject);
  const posts = postsFor(subscribers, quick);
  // The plain peer has no PATCH.
  const edits = server === "hono-live" ? 0 : posts;
  const servers: BenchServer[] = [];
  let crowd: Crowd | undefined;
  let poster: PostClient | undefined;
  try {
    const database = server === "app-postgres" ? await newDatabase(run) : undefined;
    const env = { ...run.env, MAX_SUBSCRIBERS: String(subscribers + SPARE_PLACES), ...database };
    const start = async () => {
      const started = await (server === "hono-live"
        ? startProgram("bench/peers/hono-live", runtime, {}, run.servers)
        : startProgram("service", runtime, env, run.servers));
      servers.push(started);
      return started;
    };
    const followed = await start();
    // On PostgreSQL the tasks are POSTed to another process of the same list.
    const posted = database === undefined ? followed : await start();
    const { pid } = followed;
    const limit = openFilesLimit(pid);
    if (limit < subscribers + SPARE_FILES) {
      throw new Error(
        `The server may open ${limit} files, too few for ${subscribers} subscribers: raise the limit with ulimit -n (at least ${subscribers + SPARE_FILES})`,
      );
    }

    const firstId = (await lastTaskId(followed.url)) + 1;
    const rss = () => (server === "app-postgres" ? undefined : followed.memoryKib());
    await sleep(SETTLE_START_MS);
    const rssBeforeKib = rss();
    const opening = Date.now();
    crowd = await Crowd.open({
      port: portOf(followed),
      path: `/tasks/events?after=${firstId - 1}`,
      count: subscribers,
      firstId,
      posts: posts + edits,
      processes: run.layout.load.length,
    });
    const openSeconds = (Date.now() - opening) / 1000;
    await sleep(SETTLE_OPEN_MS);
    const rssOpenKib = rss();

    poster = await PostClient.connect(portOf(posted), NEW_TASK_BODY);
    const answeredAt: number[] = [];
    const postMs: number[] = [];
    const serverBefore = cpuTicks(pid);
    const clientsBefore = crowd.pids.reduce((sum, p) => sum + cpuTicks(p), 0);
    for (let index = 0; index < posts; index++) {
      const answer = await poster.post();
      if (answer.id !== firstId + index) {
        throw new Error(`POST ${index + 1} added task ${answer.id}, not ${firstId + index}: something else adds tasks`);
      }
      answeredAt.push(answer.answeredAt);
      postMs.push(answer.answeredAt - answer.sentAt);
      await crowd.delivered(index, DELIVERY_TIMEOUT_MS);
      await sleep(SPACING_MS);
    }
    for (let index = 0; index < edits; index++) {
      const answer = await poster.patch(firstId + index, EDIT_BODY);
      if (answer.id !== firstId + index)
        throw new Error(`PATCH ${index + 1} edited task ${answer.id}, not ${firstId + index}`);
      answeredAt.push(answer.answeredAt);
      await crowd.delivered(posts + index, DELIVERY_TIMEOUT_MS);
      await sleep(SPACING_MS);
    }
    const serverTicks = cpuTicks(pid) - serverBefore;
    const clientTicks = crowd.pids.reduce((sum, p) => sum + cpuTicks(p), 0) - clientsBefore;
    poster.close();
    poster = undefined;
    const rssPostedKib = rss();

    const only = (from: number, to: number) => answeredAt.map((at, i) => (i >= from && i < to ? at : Number.NaN));
    const result = await crowd.latencies(only(0, posts));
    const editResult = edits === 0 ? undefined : await crowd.latencies(only(posts, posts + edits));
    const edited = editResult?.latencies.sort();
    await crowd.close();
    crowd = undefined;
    await sleep(SETTLE_LEFT_MS);
    const rssLeftKib = rss();

    const sorted = result.latencies.sort();
    const events = sorted.length;
    const micros = (ticks: number) => ((ticks / CLOCK_TICKS) * 1e6) / Math.max(events, 1);
    return {
      runtime,
      server,
      subscribers,
      posts,
      events,
      missed: result.missed + (editResult?.missed ?? 0),
      unexpected: result.unexpected,
      ended: result.ended,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted[events - 1] ?? Number.NaN,
      openSeconds,
      postMs: median(postMs),
      editP50Ms: edited === undefined ? undefined : percentile(edited, 0.5),
      editP99Ms: edited === undefined ? undefined : percentile(edited, 0.99),
      serverMicrosPerEvent: micros(serverTicks),
      clientMicrosPerEvent: micros(clientTicks),
      rssBeforeKib,
      rssOpenKib,
      rssPostedKib,
      rssLeftKib,
      kibPerSubscriber:
        rssOpenKib === undefined || rssBeforeKib === undefined ? undefined : (rssOpenKib - rssBeforeKib) / subscribers,
    };
  } finally {
    poster?.close();
    await crowd?.close();
    await Promise.all(servers.map((s) => s.stop()));
  }
}

function portOf(server: BenchServer): number {
  return Number(new URL(server.url).port);
}

/** The value below which a share `q` of the sorted values lie (nearest rank). */
export function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

async function newDatabase(run: RunSettings): Promise<Record<string, string>> {
  if (run.database === undefined) throw new Error("The PostgreSQL server of live-node-postgres did not start");
  const url = await run.database.createDatabase(`live_${Date.now()}`);
  return { TASK_STORE: "postgres", DATABASE_URL: url };
}
