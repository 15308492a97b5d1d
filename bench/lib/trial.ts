import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SERVER_PLATFORM, WORKERS_PLATFORM } from "../../src/config.ts";
import type { ThrowawayPostgres } from "../../test/support/postgres-server.ts";
import { type CpuLayout, tasksetList } from "./cpus.ts";
import { editMany, freePort, getList, postMany, waitUntilReady } from "./http.ts";
import {
  EDITS,
  INITIAL_TASKS,
  type Measurement,
  type MemoryReading,
  READ_AFTER_CHANGE,
  READ_AFTER_CHANGE_PAIRS,
  runtimeOf,
  type Scenario,
  type Subject,
  scenariosOf,
  serverOf,
} from "./measurements.ts";
import { CLOCK_TICKS, coreTicks, coreTicksBetween, cpuTicks, rssKib } from "./proc-stats.ts";
import { type Command, type Running, start } from "./processes.ts";
import {
  appCommand,
  ceilingCommand,
  denoPostCeilingCommand,
  durableAppCommand,
  durableStorageDir,
  fastifyCommand,
  honoCommand,
  type Runtime,
  type ServerKind,
  type Workspace,
} from "./servers.ts";
import { runWrk, type WrkScript } from "./wrk.ts";

/** The task every POST creates, while growing the list and while measuring. */
export const NEW_TASK_BODY = '{"title":"Review the benchmark results","completed":false}';

/**
 * Limits high enough that no run fills the list: a full list would answer 507 and falsify the POST
 * rate. MAX_LIST_BYTES is the most each platform accepts: 1 GiB on Node, Bun and Deno, 24 MiB on
 * workerd (a Worker refuses more at start), over three times a 100,000-task list grown by a POST run.
 */
function listLimits(runtime: Runtime): Record<string, string> {
  const platform = runtime === "workerd" ? WORKERS_PLATFORM : SERVER_PLATFORM;
  return { MAX_TASKS: "10000000", MAX_LIST_BYTES: String(platform.maxListBytes) };
}

/** How every run loads its server. */
export interface LoadSettings {
  readonly seconds: number;
  /** A short GET load before measuring (whole seconds, as wrk takes them), so that each runtime's JIT has compiled the hot paths. */
  readonly warmSeconds: number;
  readonly connections: number;
  readonly threads: number;
  /** Extra environment for the service and Fastify. */
  readonly env: Readonly<Record<string, string>>;
  readonly layout: CpuLayout;
  readonly workspace: Workspace;
  /** The PostgreSQL server of the `-postgres` subjects, which gives each of their trials a database of its own. */
  readonly database: ThrowawayPostgres | undefined;
}

/** What one trial measured, and the runs it had to leave out, each with the reason. */
export interface TrialResult {
  readonly measurements: Measurement[];
  readonly memory: MemoryReading | undefined;
  readonly failures: string[];
}

/** The wrk script of each scenario: the reads after edits are the reads. */
const SCRIPTS: Record<Scenario, WrkScript> = {
  get: "get",
  "conditional-get": "conditional-get",
  "get-edited": "get",
  "conditional-get-edited": "conditional-get",
  "read-after-change": "read-after-change",
  "read-after-change-304": "read-after-change-304",
  patch: "patch",
  post: "post",
  "post-key": "post-key",
};

/** Lists over this many bytes are loaded with fewer connections: see {@link connectionsFor}. */
const LARGE_LIST_BYTES = 1024 * 1024;

/**
 * Connections of a run of a read after a change, at every size: each holds a POST and a GET in
 * flight, so ten keep the server's core busy, and a run that ends on its count of pairs leaves at
 * most ten of them unanswered (1%, whose CPU time it still counts).
 */
const READ_AFTER_CHANGE_CONNECTIONS = 10;

interface Server {
  readonly process: Running;
  readonly url: string;
  /** Where the server's output goes; removed after the trial, as request logs can be large. */
  readonly log: string;
}

/**
 * One trial: a fresh server of `subject`, grown by POSTs to `tasks` tasks, and, for the service, a
 * fresh ceiling of the same runtime serving the same bytes (on Deno at 2 tasks, also its POST
 * ceiling). It measures the ceilings, then the server's conditional GET, GET, read after change
 * and POST (those of {@link scenariosOf} the subject), and stops every server whatever happens.
 */
export async function runTrial(
  subject: Subject,
  tasks: number,
  repeat: number,
  load: LoadSettings,
): Promise<TrialResult> {
  const runtime = runtimeOf(subject);
  const kind = serverOf(subject);
  const scenarios = scenariosOf(subject);
  const servers: Server[] = [];
  const measurements: Measurement[] = [];
  const failures: string[] = [];
  const port = await freePort();
  try {
    const app = await startServer(serverCommand(subject, port, load, await databaseOf(kind, port, load)), port, load);
    servers.push(app);
    await warm(app, load.connections, load);
    const rssBeforeKib = rssKib(app.process.pid);
    const withEtag = scenarios.includes("conditional-get");
    const before = await getList(app.url, INITIAL_TASKS, withEtag);
    await postMany(app.url, NEW_TASK_BODY, tasks - INITIAL_TASKS);
    const rssAfterKib = rssKib(app.process.pid);
    let list = await getList(app.url, tasks, withEtag);
    const memory: MemoryReading | undefined =
      tasks > INITIAL_TASKS
        ? {
            runtime,
            server: kind,
            tasks,
            repeat,
            rssBeforeKib,
            rssAfterKib,
            tasksAdded: tasks - INITIAL_TASKS,
            jsonBytesAdded: list.body.byteLength - before.body.byteLength,
          }
        : undefined;

    // Only answers that carry the whole list need fewer connections; 304s and POSTs are small at any size.
    const listConnections = connectionsFor(list.body.byteLength, load);
    const measure = async (server: Server, serverKind: ServerKind, scenario: Scenario, env: Record<string, string>) => {
      const connections =
        scenario === "get" || scenario === "get-edited"
          ? listConnections
          : READ_AFTER_CHANGE.includes(scenario)
            ? Math.min(READ_AFTER_CHANGE_CONNECTIONS, load.connections)
            : load.connections;
      const idBefore = scenario === "post-key" ? await lastTaskId(server.url) : undefined;
      const run = await measureRun(server, scenario, env, connections, load);
      const m: Measurement = { runtime, server: serverKind, scenario, tasks, repeat, connections, ...run };
      const problem =
        checkAnswers(m, list.body.byteLength, load.seconds) ??
        (idBefore === undefined
          ? undefined
          : checkKeyedPosts(m, (await lastTaskId(server.url)) - idBefore, load.seconds));
      if (problem === undefined) measurements.push(m);
      else
        failures.push(
          `${subject} ${serverKind === "ceiling" ? "ceiling " : ""}at ${tasks} tasks, trial ${repeat}: ${problem}`,
        );
    };
    if (kind === "app") {
      const file = join(load.workspace.dir, `list-${port}.json`);
      writeFileSync(file, list.body);
      const ceilingPort = await freePort();
      const ceiling = await startServer(
        ceilingCommand(runtime, ceilingPort, load.workspace, { file, headers: list.headers }),
        ceilingPort,
        load,
      );
      servers.push(ceiling);
      await warm(ceiling, listConnections, load);
      await measure(ceiling, "ceiling", "get", {});
      if (runtime === "deno" && tasks === INITIAL_TASKS) {
        const postPort = await freePort();
        const postCeiling = await startServer(
          denoPostCeilingCommand(postPort, { file, headers: list.headers }),
          postPort,
          load,
        );
        servers.push(postCeiling);
        await warm(postCeiling, load.connections, load);
        await measure(postCeiling, "ceiling", "post", { BENCH_BODY: NEW_TASK_BODY });
      }
    }
    // The conditional GET goes first: on Node, seconds of 7 MB answers leave work behind that
    // slows the next run by half, which would be charged to the 304s. The POST, which grows the list, goes last.
    if (scenarios.includes("conditional-get") && list.etag !== undefined) {
      await measure(app, kind, "conditional-get", { BENCH_ETAG: list.etag });
    }
    if (tasks > INITIAL_TASKS) await warm(app, listConnections, load);
    await measure(app, kind, "get", {});
    // The same two reads after edits spread over the list, each to a different task.
    if (scenarios.includes("get-edited") && tasks >= EDITS) {
      await editMany(app.url, tasks, EDITS);
      list = await getList(app.url, tasks);
      await measure(app, kind, "conditional-get-edited", { BENCH_ETAG: list.etag ?? "" });
      await warm(app, listConnections, load);
      await measure(app, kind, "get-edited", {});
    }
    // Before the POST run, which adds tens of thousands of tasks at 2 tasks: each of these adds
    // about READ_AFTER_CHANGE_PAIRS, and a POST's cost is meant not to depend on the list's length.
    for (const scenario of READ_AFTER_CHANGE.filter((s) => scenarios.includes(s))) {
      await measure(app, kind, scenario, {
        BENCH_BODY: NEW_TASK_BODY,
        BENCH_PAIRS: String(Math.ceil(READ_AFTER_CHANGE_PAIRS / load.threads)),
      });
    }
    // Before the POSTs, so that it edits a list of the trial's size.
    if (scenarios.includes("patch")) await measure(app, kind, "patch", { BENCH_TASKS: String(tasks) });
    if (scenarios.includes("post")) await measure(app, kind, "post", { BENCH_BODY: NEW_TASK_BODY });
    if (scenarios.includes("post-key")) await measure(app, kind, "post-key", { BENCH_BODY: NEW_TASK_BODY });
    return { measurements, memory, failures };
  } finally {
    await Promise.all(servers.map((s) => s.process.stop()));
    for (const server of servers) rmSync(server.log, { force: true });
    if (kind === "app-durable") rmSync(durableStorageDir(load.workspace, port), { recursive: true, force: true });
  }
}

/** The environment that puts a `-postgres` subject's list in a new database; nothing for the others. */
async function databaseOf(kind: ServerKind, port: number, load: LoadSettings): Promise<Record<string, string>> {
  if (kind !== "app-postgres") return {};
  if (load.database === undefined) throw new Error("The PostgreSQL server of the -postgres subjects did not start");
  return { TASK_STORE: "postgres", DATABASE_URL: await load.database.createDatabase(`trial_${port}_${Date.now()}`) };
}

/**
 * How `subject` starts. The service and Fastify get the run's --env and the list limits; the
 * service's `-logoff` subject also LOG_LEVEL=off, its `-postgres` subject `database`. The plain
 * Hono peer reads only PORT and HOST.
 */
function serverCommand(subject: Subject, port: number, load: LoadSettings, database: Record<string, string>): Command {
  const runtime = runtimeOf(subject);
  const env = { ...load.env, ...listLimits(runtime) };
  switch (serverOf(subject)) {
    case "app":
      return appCommand(runtime, port, load.workspace, env);
    case "app-logoff":
      return appCommand(runtime, port, load.workspace, { ...env, LOG_LEVEL: "off" });
    case "app-postgres":
      return appCommand(runtime, port, load.workspace, { ...env, ...database });
    case "app-durable":
      return durableAppCommand(port, load.workspace, env);
    case "hono":
      return honoCommand(runtime, port, load.workspace);
    case "fastify":
      return fastifyCommand(port, env);
  }
}

async function startServer(command: Command, port: number, load: LoadSettings): Promise<Server> {
  const log = join(load.workspace.dir, `server-${port}.log`);
  const running = start(command, tasksetList(load.layout, load.layout.server), log);
  const url = `http://127.0.0.1:${port}/tasks`;
  try {
    await waitUntilReady(url, running);
  } catch (error) {
    await running.stop();
    throw error;
  }
  return { process: running, url, log };
}

/**
 * A 7 MB list takes a server tens of milliseconds per answer, so 50 connections would queue for
 * seconds and a 3 s run would complete a handful of requests. Ten still keep one core busy.
 */
function connectionsFor(listBytes: number, load: LoadSettings): number {
  return listBytes > LARGE_LIST_BYTES ? Math.min(10, load.connections) : load.connections;
}

function warm(server: Server, connections: number, load: LoadSettings): Promise<unknown> {
  return runWrk(
    { url: server.url, script: "get", seconds: load.warmSeconds, threads: load.threads, connections },
    tasksetList(load.layout, load.layout.load),
  );
}

async function measureRun(
  server: Server,
  scenario: Scenario,
  env: Record<string, string>,
  connections: number,
  load: LoadSettings,
) {
  const { pid } = server.process;
  const cpuBefore = cpuTicks(pid);
  const coresBefore = coreTicks();
  const wrk = await runWrk(
    {
      url: server.url,
      script: SCRIPTS[scenario],
      seconds: load.seconds,
      threads: load.threads,
      connections,
      env,
    },
    tasksetList(load.layout, load.layout.load),
  );
  const coresAfter = coreTicks();
  const serverTicks = cpuTicks(pid) - cpuBefore;
  const serverCore = coreTicksBetween(coresBefore, coresAfter, load.layout.server);
  const loadCores = coreTicksBetween(coresBefore, coresAfter, load.layout.load);
  const share = (ticks: number, total: number) => (total === 0 ? 0 : ticks / total);
  const e = wrk.errors;
  return {
    requestsPerSecond: wrk.requests / (wrk.durationUs / 1e6),
    p50Ms: wrk.p50Us / 1000,
    p99Ms: wrk.p99Us / 1000,
    cpuMicrosPerRequest: ((serverTicks / CLOCK_TICKS) * 1e6) / Math.max(wrk.requests, 1),
    bytesPerResponse: wrk.bytes / Math.max(wrk.requests, 1),
    errors: e.connect + e.read + e.write + e.status + e.timeout,
    serverCoreBusy: share(serverCore.busy, serverCore.total),
    serverCoreOther: Math.max(0, share(serverCore.busy - serverTicks, serverCore.total)),
    loadCoresBusy: share(loadCores.busy, loadCores.total),
  };
}

/** The id of the last task in the list at `url`: the list's length, as ids count from 1 and none is deleted. */
async function lastTaskId(url: string): Promise<number> {
  const tasks = (await (await fetch(url)).json()) as { id: number }[];
  return tasks.at(-1)?.id ?? 0;
}

/**
 * Why a run of POSTs with fresh keys does not measure what it claims: each answer must have added
 * a task, not replayed another's (a key used twice), or undefined when each did. The answers are
 * counted from the rate over the run's seconds, which wrk keeps to within a few milliseconds.
 */
function checkKeyedPosts(m: Measurement, added: number, seconds: number): string | undefined {
  const answered = m.requestsPerSecond * seconds;
  return added >= 0.99 * answered
    ? undefined
    : `about ${Math.round(answered)} POSTs with a fresh key added only ${added} tasks: keys were replayed`;
}

/** Why a run does not measure what it claims (no answers, short GETs, 304s with a body), or undefined when it does. */
function checkAnswers(m: Measurement, listBytes: number, seconds: number): string | undefined {
  if (m.requestsPerSecond * seconds < 1) return `no ${m.scenario} completed in ${seconds} s`;
  if ((m.scenario === "get" || m.scenario === "get-edited") && m.bytesPerResponse < listBytes) {
    return `GET answered ${Math.round(m.bytesPerResponse)} bytes, less than the list's ${listBytes}`;
  }
  if ((m.scenario === "conditional-get" || m.scenario === "conditional-get-edited") && m.bytesPerResponse > 1024) {
    return "the conditional GET was answered with a body: the ETag did not match";
  }
  // Half the answers are GETs, each carrying at least the list the run started with; wrk may count
  // the POST of a pair whose GET the end of the run cut off, hence the margin.
  if (m.scenario === "read-after-change" && m.bytesPerResponse * 2 < 0.9 * listBytes) {
    return `the GETs after POSTs answered ${Math.round(m.bytesPerResponse * 2)} bytes per pair, less than the list's ${listBytes}`;
  }
  if (m.scenario === "read-after-change-304" && m.bytesPerResponse > 1024) {
    return "the GETs with If-None-Match: * after POSTs were answered with a body, not a 304";
  }
  return undefined;
}
