// One trial of the live scenario: a fresh server, a crowd of idle SSE subscribers, then POSTs one
// at a time, then (on the service) as many PATCHes of the tasks they created, each timed from its
// answer to its event at every subscriber; resident memory before, with and after the crowd.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ThrowawayPostgres } from "../../test/support/postgres-server.ts";
import { type CpuLayout, tasksetList } from "../lib/cpus.ts";
import { freePort, waitUntilReady } from "../lib/http.ts";
import { CLOCK_TICKS, cpuTicks, rssKib } from "../lib/proc-stats.ts";
import { type Command, type Running, start } from "../lib/processes.ts";
import { appCommand, scriptCommand, type Workspace } from "../lib/servers.ts";
import { median } from "../lib/summary.ts";
import { NEW_TASK_BODY } from "../lib/trial.ts";
import { Crowd, openFilesLimit, SPARE_FILES } from "./crowd.ts";
import { PostClient } from "./post-client.ts";
import { type LiveReading, type LiveSubject, liveRuntimeOf, liveServerOf, postsFor } from "./subjects.ts";

/** What every live trial shares. */
export interface LiveSettings {
  readonly quick: boolean;
  /** Extra environment for the service. */
  readonly env: Readonly<Record<string, string>>;
  readonly layout: CpuLayout;
  readonly workspace: Workspace;
  /** The PostgreSQL server, for `live-node-postgres`, which gets a new database per trial. */
  readonly database: ThrowawayPostgres | undefined;
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

interface Server {
  readonly process: Running;
  readonly port: number;
  readonly log: string;
}

/**
 * One trial of `subject` with `subscribers` idle subscribers on /tasks/events: opens them, reads
 * the server's memory once they have settled, POSTs tasks one at a time (to the other process on
 * PostgreSQL) and times each event from the POST's answer, then closes them and reads memory again.
 */
export async function runLiveTrial(
  subject: LiveSubject,
  subscribers: number,
  repeat: number,
  settings: LiveSettings,
): Promise<LiveReading> {
  const runtime = liveRuntimeOf(subject);
  const server = liveServerOf(subject);
  const posts = postsFor(subscribers, settings.quick);
  // The plain peer has no PATCH.
  const edits = server === "hono-live" ? 0 : posts;
  const servers: Server[] = [];
  let crowd: Crowd | undefined;
  let poster: PostClient | undefined;
  try {
    const database = server === "app-postgres" ? await newDatabase(settings) : undefined;
    const command = (port: number): Command => {
      if (server === "hono-live") return scriptCommand(runtime, `bench/peers/hono-live/${runtime}.ts`, listen(port));
      const env = { ...settings.env, MAX_SUBSCRIBERS: String(subscribers + SPARE_PLACES), ...database };
      return appCommand(runtime, port, settings.workspace, env);
    };
    const followed = await startServer(command, settings);
    servers.push(followed);
    // On PostgreSQL the tasks are POSTed to another process of the same list.
    const posted = database === undefined ? followed : await startServer(command, settings);
    if (posted !== followed) servers.push(posted);
    const pid = followed.process.pid;
    const limit = openFilesLimit(pid);
    if (limit < subscribers + SPARE_FILES) {
      throw new Error(
        `The server may open ${limit} files, too few for ${subscribers} subscribers: raise the limit with ulimit -n (at least ${subscribers + SPARE_FILES})`,
      );
    }

    const firstId = (await lastId(followed.port)) + 1;
    const memory = server !== "app-postgres";
    await sleep(SETTLE_START_MS);
    const rssBeforeKib = memory ? rssKib(pid) : undefined;
    const opening = Date.now();
    crowd = await Crowd.open({
      port: followed.port,
      path: `/tasks/events?after=${firstId - 1}`,
      count: subscribers,
      firstId,
      posts: posts + edits,
      processes: settings.layout.load.length,
    });
    const openSeconds = (Date.now() - opening) / 1000;
    await sleep(SETTLE_OPEN_MS);
    const rssOpenKib = memory ? rssKib(pid) : undefined;

    poster = await PostClient.connect(posted.port, NEW_TASK_BODY);
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
    const rssPostedKib = memory ? rssKib(pid) : undefined;

    const only = (from: number, to: number) => answeredAt.map((at, i) => (i >= from && i < to ? at : Number.NaN));
    const result = await crowd.latencies(only(0, posts));
    const editResult = edits === 0 ? undefined : await crowd.latencies(only(posts, posts + edits));
    const edited = editResult?.latencies.sort();
    await crowd.close();
    crowd = undefined;
    await sleep(SETTLE_LEFT_MS);
    const rssLeftKib = memory ? rssKib(pid) : undefined;

    const sorted = result.latencies.sort();
    const events = sorted.length;
    const micros = (ticks: number) => ((ticks / CLOCK_TICKS) * 1e6) / Math.max(events, 1);
    return {
      subject,
      runtime,
      server,
      subscribers,
      repeat,
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
    };
  } finally {
    poster?.close();
    await crowd?.close();
    await Promise.all(servers.map((s) => s.process.stop()));
    for (const s of servers) rmSync(s.log, { force: true });
  }
}

const listen = (port: number) => ({ PORT: String(port), HOST: "127.0.0.1" });

/** The value below which a share `q` of the sorted values lie (nearest rank). */
function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

async function newDatabase(settings: LiveSettings): Promise<Record<string, string>> {
  if (settings.database === undefined) throw new Error("The PostgreSQL server of live-node-postgres did not start");
  const url = await settings.database.createDatabase(`live_${Date.now()}`);
  return { TASK_STORE: "postgres", DATABASE_URL: url };
}

async function startServer(command: (port: number) => Command, settings: LiveSettings): Promise<Server> {
  const port = await freePort();
  const log = join(settings.workspace.dir, `live-${port}.log`);
  const running = start(command(port), tasksetList(settings.layout, settings.layout.server), log);
  try {
    await waitUntilReady(`http://127.0.0.1:${port}/tasks`, running);
  } catch (error) {
    await running.stop();
    throw error;
  }
  return { process: running, port, log };
}

/** The id of the list's last task. */
async function lastId(port: number): Promise<number> {
  const tasks = (await (await fetch(`http://127.0.0.1:${port}/tasks`)).json()) as { id: number }[];
  return tasks.at(-1)?.id ?? 0;
}
