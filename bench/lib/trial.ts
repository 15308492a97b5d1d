// One trial of the wrk scenarios: a fresh server grown to a list size, for the service a fresh
// ceiling of its runtime serving the same bytes, then one wrk run per scenario, each read against
// the CPU time /proc charges to the server and to each core.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SERVER_PLATFORM, WORKERS_PLATFORM } from "../../src/config.ts";
import type { ThrowawayPostgres } from "../../test/support/postgres-server.ts";
import { editMany, getList, lastTaskId, postMany } from "./http.ts";
import { type CpuLayout, measureRun, runWrk, tasksetList, type WrkScript } from "./load.ts";
import { type BenchServer, type ServerSettings, startProgram } from "./servers.ts";
import {
  EDITS,
  INITIAL_TASKS,
  READ_AFTER_CHANGE,
  READ_AFTER_CHANGE_PAIRS,
  type Runtime,
  runtimeOf,
  SCENARIOS,
  type Scenario,
  type ServerKind,
  type Subject,
  scenariosOf,
  serverOf,
} from "./subjects.ts";

/** The task every POST creates, while growing the list and while measuring. */
export const NEW_TASK_BODY = '{"title":"Review the benchmark results","completed":false}';

/** What every trial of a run shares. */
export interface RunSettings {
  readonly seconds: number;
  /** GETs before measuring (whole seconds, as wrk takes them), so that each runtime's JIT has compiled the hot paths. */
  readonly warmSeconds: number;
  readonly connections: number;
  readonly threads: number;
  /** Extra environment for the service and Fastify (--env). */
  readonly env: Readonly<Record<string, string>>;
  readonly layout: CpuLayout;
  readonly servers: ServerSettings;
  /** The PostgreSQL server, which gives each trial of a `-postgres` subject a new database. */
  readonly database: ThrowawayPostgres | undefined;
}

/** One wrk run against one server. */
export interface Measurement {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  readonly scenario: Scenario;
  /** Tasks in the list when the run started; a POST run adds to it as it goes. */
  readonly tasks: number;
  readonly connections: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The server's user + system CPU time over the run, divided by the requests it answered. */
  readonly cpuMicrosPerRequest: number;
  readonly bytesPerResponse: number;
  /** Connect, read, write and timeout errors, and answers with a status of 400 or more. */
  readonly errors: number;
  /**
   * Shares of time, 0 to 1: the server's core busy, busy but not charged to the server (kernel
   * network work, other processes), and the load generator's cores busy.
   */
  readonly serverCoreBusy: number;
  readonly serverCoreOther: number;
  readonly loadCoresBusy: number;
}

/** Resident memory of a fresh, warmed-up server, and what the POSTs that grew its list added to it. */
export interface MemoryReading {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  readonly tasks: number;
  readonly tasksAdded: number;
  readonly rssBeforeKib: number;
  readonly rssGrowthKib: number;
  /** Bytes the added tasks take in the list's JSON. */
  readonly jsonBytesAdded: number;
}

/** What one trial measured, and the runs it had to leave out, each with the reason. */
export interface TrialResult {
  readonly measurements: Measurement[];
  readonly memory: MemoryReading | undefined;
  readonly failures: string[];
}

/**
 * A list over 1 MiB (100,000 tasks, about 7 MB) takes a server tens of milliseconds per answer, so
 * 50 connections would queue for seconds and a 3 s run would complete a handful of requests. Ten
 * still keep one core busy. Reads after a change get ten at every size: each holds a POST and a GET
 * in flight, and a run that ends on its count leaves at most ten pairs unanswered.
 */
const FEW_CONNECTIONS = 10;
const LARGE_LIST_BYTES = 1024 * 1024;

/**
 * One trial: a fresh server of `subject` grown by POSTs to `tasks` tasks, then the ceilings, the
 * conditional GET, the GET, the reads after edits and after a change, the PATCH and the POSTs
 * (those of {@link scenariosOf} the subject); every server is stopped whatever happens.
 */
export async function runTrial(subject: Subject, tasks: number, run: RunSettings): Promise<TrialResult> {
  const runtime = runtimeOf(subject);
  const kind = serverOf(subject);
  const scenarios = scenariosOf(subject);
  const servers: BenchServer[] = [];
  const measurements: Measurement[] = [];
  const failures: string[] = [];
  try {
    const app = await startSubject(kind, runtime, run);
    servers.push(app);
    await warm(app, run.connections, run);
    const rssBeforeKib = app.memoryKib();
    const withEtag = scenarios.includes("conditional-get");
    const before = await getList(app.url, INITIAL_TASKS, withEtag);
    await postMany(app.url, NEW_TASK_BODY, tasks - INITIAL_TASKS);
    const rssGrowthKib = app.memoryKib() - rssBeforeKib;
    let list = await getList(app.url, tasks, withEtag);
    const listBytes = list.body.byteLength;
    const listConnections = connectionsFor("get", listBytes, run);
    const measure = async (server: BenchServer, on: ServerKind, scenario: Scenario, env: Record<string, string>) => {
      const connections = connectionsFor(scenario, listBytes, run);
      // The reads after edits are the reads.
      const script = scenario.replace(/-edited$/, "") as WrkScript;
      const load = { url: server.url, script, seconds: run.seconds, threads: run.threads, env };
      const idBefore = scenario === "post-key" ? await lastTaskId(server.url) : 0;
      const figures = await measureRun(server.pid, { ...load, connections }, run.layout);
      const m = { runtime, server: on, scenario, tasks, connections, ...figures };
      const added = scenario === "post-key" ? (await lastTaskId(server.url)) - idBefore : undefined;
      const problem = checkRun(m, list.body.byteLength, run.seconds, added);
      if (problem === undefined) measurements.push(m);
      else failures.push(`${on === "ceiling" ? "the ceiling's " : ""}${scenario}: ${problem}`);
    };
    if (kind === "app") {
      // The ceiling serves the list's bytes and headers as the service sent them, read once at its start.
      const file = join(run.servers.dir, `list-${tasks}-${Date.now()}.json`);
      writeFileSync(file, list.body);
      const ceilingEnv = { BENCH_BODY_FILE: file, BENCH_HEADERS: JSON.stringify(list.headers) };
      const ceiling = await startProgram("bench/ceilings", runtime, ceilingEnv, run.servers);
      servers.push(ceiling);
      await warm(ceiling, listConnections, run);
      await measure(ceiling, "ceiling", "get", {});
      if (runtime === "deno" && tasks === INITIAL_TASKS) {
        const postCeiling = await startProgram("bench/ceilings/deno-post.ts", runtime, ceilingEnv, run.servers);
        servers.push(postCeiling);
        await warm(postCeiling, run.connections, run);
        await measure(postCeiling, "ceiling", "post", { BENCH_BODY: NEW_TASK_BODY });
      }
    }
    // The conditional GET goes first: on Node, seconds of 7 MB answers leave work behind that
    // slows the next run by half, which would be charged to the 304s.
    if (scenarios.includes("conditional-get") && list.etag !== undefined) {
      await measure(app, kind, "conditional-get", { BENCH_ETAG: list.etag });
    }
    if (tasks > INITIAL_TASKS) await warm(app, listConnections, run);
    await measure(app, kind, "get", {});
    if (scenarios.includes("get-edited") && tasks >= EDITS) {
      await editMany(app.url, tasks, EDITS);
      list = await getList(app.url, tasks);
      await measure(app, kind, "conditional-get-edited", { BENCH_ETAG: list.etag ?? "" });
      await warm(app, listConnections, run);
      await measure(app, kind, "get-edited", {});
    }
    // Before the POSTs, which add tens of thousands of tasks at 2 tasks: each read after a change
    // adds about READ_AFTER_CHANGE_PAIRS, and the PATCH edits tasks of the trial's list.
    for (const scenario of READ_AFTER_CHANGE.filter((s) => scenarios.includes(s))) {
      const pairs = String(Math.ceil(READ_AFTER_CHANGE_PAIRS / run.threads));
      await measure(app, kind, scenario, { BENCH_BODY: NEW_TASK_BODY, BENCH_PAIRS: pairs });
    }
    if (scenarios.includes("patch")) await measure(app, kind, "patch", { BENCH_TASKS: String(tasks) });
    if (scenarios.includes("post")) await measure(app, kind, "post", { BENCH_BODY: NEW_TASK_BODY });
    if (scenarios.includes("post-key")) await measure(app, kind, "post-key", { BENCH_BODY: NEW_TASK_BODY });
    const tasksAdded = tasks - INITIAL_TASKS;
    const jsonBytesAdded = listBytes - before.body.byteLength;
    const memory = { runtime, server: kind, tasks, tasksAdded, rssBeforeKib, rssGrowthKib, jsonBytesAdded };
    return { measurements, memory: tasksAdded > 0 ? memory : undefined, failures };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

/**
 * Starts `kind` on `runtime`. The service and Fastify get the run's --env, and limits high enough
 * that no run fills the list (a full list answers 507 and falsifies the POST rate): MAX_LIST_BYTES
 * is the most each platform accepts, 1 GiB, or 24 MiB on workerd (over three times a 100,000-task
 * list grown by a POST run). Plain Hono reads only PORT and HOST.
 */
export async function startSubject(kind: ServerKind, runtime: Runtime, run: RunSettings): Promise<BenchServer> {
  const platform = runtime === "workerd" ? WORKERS_PLATFORM : SERVER_PLATFORM;
  const env = { ...run.env, MAX_TASKS: "10000000", MAX_LIST_BYTES: String(platform.maxListBytes) };
  switch (kind) {
    case "app-logoff":
      return startProgram("service", runtime, { ...env, LOG_LEVEL: "off" }, run.servers);
    case "app-postgres": {
      if (run.database === undefined) throw new Error("The PostgreSQL server of the -postgres subjects did not start");
      const url = await run.database.createDatabase(`trial_${Date.now()}`);
      return startProgram("service", runtime, { ...env, TASK_STORE: "postgres", DATABASE_URL: url }, run.servers);
    }
    case "app-durable":
      return startProgram("service-durable", runtime, env, run.servers);
    case "hono":
      return startProgram("bench/peers/hono", runtime, {}, run.servers);
    case "fastify":
      return startProgram("bench/peers/fastify.ts", runtime, env, run.servers);
    default:
      return startProgram("service", runtime, env, run.servers);
  }
}

function warm(server: BenchServer, connections: number, run: RunSettings): Promise<unknown> {
  const load = { url: server.url, script: "get", seconds: run.warmSeconds, threads: run.threads, connections } as const;
  return runWrk(load, tasksetList(run.layout, run.layout.load));
}

/** Connections of a run: see {@link FEW_CONNECTIONS}. */
function connectionsFor(scenario: Scenario, listBytes: number, run: RunSettings): number {
  const carriesList = (scenario === "get" || scenario === "get-edited") && listBytes > LARGE_LIST_BYTES;
  return carriesList || READ_AFTER_CHANGE.includes(scenario)
    ? Math.min(FEW_CONNECTIONS, run.connections)
    : run.connections;
}

/**
 * Why a run does not measure what it claims (no answers, short GETs, 304s with a body, POSTs with a
 * fresh key that added fewer tasks than they were answered: a key replayed), or undefined when it
 * does. The answers are counted from the rate over the run's seconds, which wrk keeps to a few ms.
 */
function checkRun(m: Measurement, listBytes: number, seconds: number, added: number | undefined): string | undefined {
  const answered = m.requestsPerSecond * seconds;
  if (answered < 1) return `no ${m.scenario} completed in ${seconds} s`;
  if (added !== undefined && added < 0.99 * answered) {
    return `about ${Math.round(answered)} POSTs with a fresh key added only ${added} tasks: keys were replayed`;
  }
  if ((m.scenario === "get" || m.scenario === "get-edited") && m.bytesPerResponse < listBytes) {
    return `GET answered ${Math.round(m.bytesPerResponse)} bytes, less than the list's ${listBytes}`;
  }
  const bodiless: Scenario[] = ["conditional-get", "conditional-get-edited", "read-after-change-304"];
  if (bodiless.includes(m.scenario) && m.bytesPerResponse > 1024) {
    return `${SCENARIOS[m.scenario]} was answered with a body, not a 304`;
  }
  // Half the answers are GETs, each carrying at least the list the run started with; wrk may count
  // the POST of a pair whose GET the end of the run cut off, hence the margin.
  if (m.scenario === "read-after-change" && m.bytesPerResponse * 2 < 0.9 * listBytes) {
    return `the GETs after POSTs answered ${Math.round(m.bytesPerResponse * 2)} bytes per pair, less than the list's ${listBytes}`;
  }
  return undefined;
}
