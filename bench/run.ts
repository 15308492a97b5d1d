// `npm run bench`: measures the service on Node, Bun, Deno and workerd against each runtime's
// ceiling, plain Hono and Fastify; its live changes against plain Hono with live changes; what a
// long life of creations and deletions leaves in memory; its live feed's catch-ups and stalled
// subscribers; what many lists cost; and what checking a list key costs. Writes bench/results/
// (see bench/README.md).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres, type ThrowawayPostgres } from "../test/support/postgres-server.ts";
import { type FeedReading, feedCounts, runFeedTrial } from "./feed/trial.ts";
import { type KeysReading, runKeysTrial } from "./keys/trial.ts";
import { drawChart } from "./lib/chart.ts";
import { type ChurnReading, runChurnTrial } from "./lib/churn.ts";
import { cpuLayout, requireWrk, tasksetList } from "./lib/load.ts";
import { describeMachine, loadNow } from "./lib/machine.ts";
import { parseOptions, USAGE } from "./lib/options.ts";
import { type Report, toMarkdown } from "./lib/report.ts";
import { summarize } from "./lib/results.ts";
import { bundleWorker, objectsParentDir, type Program } from "./lib/servers.ts";
import { liveMeasuredAt, measuredAt, runtimeOf, type ServerKind, serverOf } from "./lib/subjects.ts";
import { checkTargets } from "./lib/targets.ts";
import { type Measurement, type MemoryReading, type RunSettings, runTrial } from "./lib/trial.ts";
import { type ListsReading, runListsTrial } from "./lists/trial.ts";
import { type LiveReading, runLiveTrial } from "./live/trial.ts";

const options = parseOptions(process.argv.slice(2));
if (options === "help") {
  console.log(USAGE);
  process.exit(0);
}
requireWrk();
// The servers run in process groups of their own, which Ctrl-C does not reach: exiting runs the
// launcher's exit hook, which kills them.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers`);
    process.exit(130);
  });
}

const layout = cpuLayout();
const dir = mkdtempSync(join(tmpdir(), "task-list-bench-"));
const objectsDir = mkdtempSync(join(objectsParentDir(), "task-list-bench-objects-"));
process.once("exit", () => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(objectsDir, { recursive: true, force: true });
});
const outDir = fileURLToPath(new URL(options.complete ? "results/" : "results/partial/", import.meta.url));
const began = Date.now();
const loadAtStart = loadNow();
const failures: string[] = [];

/** Runs one trial and returns what it read; a failed trial leaves a gap in the medians, not a lost run. */
async function attempt<T>(name: string, trial: () => Promise<T>): Promise<T | undefined> {
  console.log(`[${Math.round((Date.now() - began) / 1000)}s] ${name}`);
  try {
    return await trial();
  } catch (error) {
    failed(`${name}: ${error instanceof Error ? error.message : error}`);
    return undefined;
  }
}

function failed(...reasons: string[]): void {
  for (const reason of reasons) console.error(`  failed: ${reason}`);
  failures.push(...reasons);
}

let database: ThrowawayPostgres | undefined;
try {
  // One PostgreSQL server for the -postgres subjects, committing to disk as in production, on the
  // load generator's cores: the server under test keeps its core to itself.
  if ([...options.subjects, ...options.liveSubjects].some((s) => serverOf(s) === "app-postgres")) {
    database = await startPostgres({ durable: true, cpus: tasksetList(layout, layout.load) });
  }
  const onWorkerd = (...servers: ServerKind[]) =>
    options.subjects.some((s) => runtimeOf(s) === "workerd" && servers.includes(serverOf(s)));
  const bundles: [Program, boolean][] = [
    [
      "service",
      onWorkerd("app", "app-logoff") ||
        options.feedSubjects.includes("feed-workerd") ||
        options.listsSubjects.includes("lists-workerd") ||
        options.keysSubjects.includes("keys-workerd"),
    ],
    ["bench/ceilings", onWorkerd("app")],
    [
      "service-durable",
      onWorkerd("app-durable") ||
        options.feedSubjects.includes("feed-workerd-durable") ||
        options.listsSubjects.includes("lists-workerd-durable") ||
        options.keysSubjects.includes("keys-workerd-durable"),
    ],
    ["bench/peers/hono", onWorkerd("hono")],
  ];
  for (const [program, needed] of bundles) if (needed) bundleWorker(dir, program);
  const servers = { dir, objectsDir, cpus: tasksetList(layout, layout.server) };
  const threads = Math.min(layout.load.length, 4);
  const { seconds, connections, env, repeats } = options;
  const run: RunSettings = { seconds, warmSeconds: 1, connections, threads, env, layout, servers, database };

  // Repeats are the outer loop, so that a slow drift of the machine spreads over every server alike.
  const measurements: Measurement[] = [];
  const memory: MemoryReading[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const tasks of options.sizes) {
      for (const subject of options.subjects.filter((s) => measuredAt(s, tasks))) {
        const name = `trial ${repeat}/${repeats}: ${subject} at ${tasks.toLocaleString("en")} tasks`;
        const trial = await attempt(name, () => runTrial(subject, tasks, run));
        measurements.push(...(trial?.measurements ?? []));
        if (trial?.memory !== undefined) memory.push(trial.memory);
        failed(...(trial?.failures ?? []).map((failure) => `${name}: ${failure}`));
      }
    }
  }
  // Create and delete on each of Node, Bun and Deno whose service the run measures.
  const churn: ChurnReading[] = [];
  for (let repeat = 1; repeat <= repeats && options.pairs > 0; repeat++) {
    for (const runtime of (["node", "bun", "deno"] as const).filter((r) => options.subjects.includes(r))) {
      const name = `create-and-delete trial ${repeat}/${repeats}: ${runtime}`;
      const reading = await attempt(name, () => runChurnTrial(runtime, options.pairs, run));
      if (reading !== undefined) churn.push(reading);
    }
  }
  // Many lists: small requests like the trials', so before the crowds of the live scenario.
  const lists: ListsReading[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const subject of options.listsSubjects) {
      const name = `lists trial ${repeat}/${repeats}: ${subject}`;
      const reading = await attempt(name, () => runListsTrial(subject, repeat, run));
      if (reading !== undefined) lists.push(reading);
    }
  }
  // A list key against a deployment token: small GETs too.
  const keys: KeysReading[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const subject of options.keysSubjects) {
      const name = `keys trial ${repeat}/${repeats}: ${subject}`;
      const reading = await attempt(name, () => runKeysTrial(subject, repeat, run));
      if (reading !== undefined) keys.push(reading);
    }
  }
  // The live scenario last: its crowds of subscribers would leave the machine's network stack busy
  // for the runs after them.
  const live: LiveReading[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const subscribers of options.subscribers) {
      for (const subject of options.liveSubjects.filter((s) => liveMeasuredAt(s, subscribers))) {
        const name = `live trial ${repeat}/${repeats}: ${subject} with ${subscribers.toLocaleString("en")} subscribers`;
        const reading = await attempt(name, () => runLiveTrial(subject, subscribers, options.quick, run));
        if (reading === undefined) continue;
        live.push(reading);
        const { missed, unexpected, ended } = reading;
        if (missed + unexpected + ended > 0) {
          failed(
            `${name}: ${missed} event(s) missed, ${unexpected} unexpected, ${ended} stream(s) ended by the server`,
          );
        }
      }
    }
  }

  // The feed scenario after the live one, for the same reason: its crowds, and lists of megabytes.
  const feed: FeedReading[] = [];
  const counts = feedCounts(options.quick, options.stalled);
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const subject of options.feedSubjects) {
      const name = `feed trial ${repeat}/${repeats}: ${subject}`;
      const server = serverOf(subject) === "app-durable" ? "app-durable" : "app";
      const reading = await attempt(name, () => runFeedTrial(runtimeOf(subject), server, counts, run));
      if (reading !== undefined) feed.push(reading);
    }
  }

  const results = summarize(measurements, memory, live, churn, feed, lists, keys);
  const machine = describeMachine(layout, loadAtStart);
  const report: Report = { options, machine, results, targets: checkTargets(results, env), failures };
  mkdirSync(outDir, { recursive: true });
  const raw = { measurements, memory, live, churn, feed, lists, keys };
  writeFileSync(join(outDir, "results.json"), `${JSON.stringify({ ...report, threads, raw }, null, 2)}\n`);
  writeFileSync(join(outDir, "rps-by-tasks.svg"), await drawChart(results.rows));
  writeFileSync(join(outDir, "results.md"), toMarkdown(report, "rps-by-tasks.svg"));
  const missed = report.targets.filter((t) => t.met === false).length;
  console.log(`done: ${missed} target check(s) missed, ${failures.length} run(s) failed; see ${outDir}results.md`);
  if (failures.length > 0) process.exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await database?.stop();
}
