// `npm run bench`: measures the service on Node, Bun, Deno and workerd against each runtime's
// ceiling, against a plain Hono app on the same runtime and against Fastify, then its live changes
// against a plain Hono peer, and writes the results to bench/results/ (see bench/README.md).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type ThrowawayPostgres } from "../test/support/postgres-server.ts";
import { drawChart } from "./lib/chart.ts";
import { type ChurnReading, type ChurnRuntime, checkChurnTargets, runChurnTrial } from "./lib/churn.ts";
import { cpuLayout, pinSelf, tasksetList } from "./lib/cpus.ts";
import { describeMachine, loadNow } from "./lib/machine.ts";
import { toMarkdown } from "./lib/markdown.ts";
import { type Measurement, type MemoryReading, measuredAt, runtimeOf, serverOf } from "./lib/measurements.ts";
import { parseOptions, USAGE } from "./lib/options.ts";
import { ROOT } from "./lib/paths.ts";
import { stopAll, stopAllOnExit } from "./lib/processes.ts";
import {
  DURABLE_WORKER_DIR,
  HONO_WORKER_DIR,
  objectsParentDir,
  type ServerKind,
  type Workspace,
} from "./lib/servers.ts";
import { summarize, summarizeMemory } from "./lib/summary.ts";
import { checkTargets } from "./lib/targets.ts";
import { runTrial } from "./lib/trial.ts";
import { bundleWorker, writeCeilingWorker } from "./lib/workerd.ts";
import { requireWrk } from "./lib/wrk.ts";
import { type LiveReading, liveMeasuredAt, liveServerOf } from "./live/subjects.ts";
import { summarizeLive } from "./live/summary.ts";
import { checkLiveTargets } from "./live/targets.ts";
import { runLiveTrial } from "./live/trial.ts";

const options = parseOptions(process.argv.slice(2));
if (options === "help") {
  console.log(USAGE);
  process.exit(0);
}
requireWrk();
stopAllOnExit();

const layout = cpuLayout();
pinSelf(layout);
const threads = Math.min(layout.load.length, 4);
const dir = mkdtempSync(join(tmpdir(), "task-list-bench-"));
const objectsDir = mkdtempSync(join(objectsParentDir(), "task-list-bench-objects-"));
const outDir = join(ROOT, options.complete ? "bench/results" : "bench/results/partial");
const began = Date.now();
const loadAtStart = loadNow();
const elapsed = () => `${Math.round((Date.now() - began) / 1000)}s`;
let database: ThrowawayPostgres | undefined;

try {
  // One PostgreSQL server for the -postgres subjects, committing to disk as in production, on the
  // load generator's cores: the server under test keeps its core to itself.
  if (
    options.subjects.some((s) => serverOf(s) === "app-postgres") ||
    options.liveSubjects.some((s) => liveServerOf(s) === "app-postgres")
  ) {
    database = await startPostgres({ durable: true, cpus: tasksetList(layout, layout.load) });
  }
  /** Whether the run starts any of `servers` on workerd, which then needs its Worker bundled. */
  const onWorkerd = (...servers: ServerKind[]) =>
    options.subjects.some((s) => runtimeOf(s) === "workerd" && servers.includes(serverOf(s)));
  const workspace: Workspace = {
    dir,
    workerModules: onWorkerd("app", "app-logoff") ? bundleWorker(dir) : [],
    ceilingModule: writeCeilingWorker(dir),
    honoWorkerModules: onWorkerd("hono") ? bundleWorker(join(dir, HONO_WORKER_DIR), "bench/peers/hono/worker.ts") : [],
    durableWorkerModules: onWorkerd("app-durable")
      ? bundleWorker(join(dir, DURABLE_WORKER_DIR), undefined, "durable")
      : [],
    objectsDir,
  };
  const load = {
    seconds: options.seconds,
    warmSeconds: options.warmSeconds,
    connections: options.connections,
    threads,
    env: options.env,
    layout,
    workspace,
    database,
  };
  const measurements: Measurement[] = [];
  const memory: MemoryReading[] = [];
  const failures: string[] = [];
  let failed = 0;
  // Repeats are the outer loop, so that a slow drift of the machine spreads over every server alike.
  for (let repeat = 1; repeat <= options.repeats; repeat++) {
    for (const tasks of options.sizes) {
      for (const subject of options.subjects.filter((s) => measuredAt(s, tasks))) {
        console.log(
          `[${elapsed()}] trial ${repeat}/${options.repeats}: ${subject} at ${tasks.toLocaleString("en")} tasks`,
        );
        try {
          const trial = await runTrial(subject, tasks, repeat, load);
          measurements.push(...trial.measurements);
          if (trial.memory !== undefined) memory.push(trial.memory);
          failures.push(...trial.failures);
        } catch (error) {
          // One failed trial leaves a gap in the medians, not a lost run; the report lists it.
          failures.push(
            `${subject} at ${tasks} tasks, trial ${repeat}: ${error instanceof Error ? error.message : error}`,
          );
        }
        for (const failure of failures.slice(failed)) console.error(`  failed: ${failure}`);
        failed = failures.length;
      }
    }
  }

  // Create and delete, on each runtime whose service the run measures (but workerd, which the tests'
  // launcher runs through wrangler dev): what a long life of changes leaves in memory.
  const churnReadings: ChurnReading[] = [];
  const churnRuntimes = (["node", "bun", "deno"] as const).filter((r: ChurnRuntime) =>
    options.subjects.some((s) => s === r),
  );
  for (let repeat = 1; repeat <= options.repeats && options.pairs > 0; repeat++) {
    for (const runtime of churnRuntimes) {
      console.log(`[${elapsed()}] create-and-delete trial ${repeat}/${options.repeats}: ${runtime}`);
      try {
        churnReadings.push(await runChurnTrial(runtime, options.pairs, repeat, load));
      } catch (error) {
        failures.push(
          `create and delete on ${runtime}, trial ${repeat}: ${error instanceof Error ? error.message : error}`,
        );
      }
      for (const failure of failures.slice(failed)) console.error(`  failed: ${failure}`);
      failed = failures.length;
    }
  }

  // The live scenario, after the others: its crowds of subscribers would leave the machine's
  // network stack busy for the runs that followed them.
  const liveReadings: LiveReading[] = [];
  const liveSettings = { quick: options.quick, env: options.env, layout, workspace, database };
  for (let repeat = 1; repeat <= options.repeats; repeat++) {
    for (const subscribers of options.subscribers) {
      for (const subject of options.liveSubjects.filter((s) => liveMeasuredAt(s, subscribers))) {
        const trial = `${subject} with ${subscribers.toLocaleString("en")} subscribers, trial ${repeat}`;
        console.log(
          `[${elapsed()}] live trial ${repeat}/${options.repeats}: ${subject} with ${subscribers} subscribers`,
        );
        try {
          const reading = await runLiveTrial(subject, subscribers, repeat, liveSettings);
          liveReadings.push(reading);
          if (reading.missed + reading.unexpected + reading.ended > 0) {
            failures.push(
              `${trial}: ${reading.missed} event(s) missed, ${reading.unexpected} unexpected, ${reading.ended} stream(s) ended by the server`,
            );
          }
        } catch (error) {
          failures.push(`${trial}: ${error instanceof Error ? error.message : error}`);
        }
        for (const failure of failures.slice(failed)) console.error(`  failed: ${failure}`);
        failed = failures.length;
      }
    }
  }

  const rows = summarize(measurements);
  const memoryRows = summarizeMemory(memory);
  const liveRows = summarizeLive(liveReadings);
  const report = {
    date: new Date().toISOString(),
    options,
    machine: describeMachine(layout, loadAtStart),
    threads,
    rows,
    memory: memoryRows,
    live: liveRows,
    churn: churnReadings,
    targets: [
      ...checkTargets(rows, memoryRows, options.env),
      ...checkLiveTargets(liveRows),
      ...checkChurnTargets(churnReadings),
    ],
    failures,
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, "results.json"),
    `${JSON.stringify({ ...report, measurements, memoryReadings: memory, liveReadings }, null, 2)}\n`,
  );
  writeFileSync(join(outDir, "rps-by-tasks.svg"), await drawChart(rows));
  writeFileSync(join(outDir, "results.md"), toMarkdown(report, "rps-by-tasks.svg"));
  const missed = report.targets.filter((t) => t.met === false).length;
  console.log(
    `[${elapsed()}] done: ${missed} target check(s) missed, ${failures.length} run(s) failed; results in ${join(outDir, "results.md")}`,
  );
  if (failures.length > 0) process.exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await stopAll();
  await database?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(objectsDir, { recursive: true, force: true });
}
