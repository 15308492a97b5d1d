import { compareRows, SCENARIO_LABELS, SERVER_LABELS } from "./labels.ts";
import type { MachineInfo } from "./machine.ts";
import type { BenchOptions } from "./options.ts";
import type { MemoryRow, Row } from "./summary.ts";
import { ISSUES, type TargetCheck } from "./targets.ts";

/** Everything a results file holds. */
export interface BenchReport {
  readonly date: string;
  readonly options: BenchOptions;
  readonly machine: MachineInfo;
  readonly threads: number;
  readonly rows: readonly Row[];
  readonly memory: readonly MemoryRow[];
  readonly targets: readonly TargetCheck[];
  /** Runs and trials left out, each with its reason. */
  readonly failures: readonly string[];
}

/** A Markdown table whose first `textColumns` columns are left-aligned and the others, numbers, right-aligned. */
function table(header: readonly string[], rows: readonly (readonly string[])[], textColumns: number): string {
  const align = header.map((_, i) => (i < textColumns ? "---" : "---:"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

const int = (x: number) => Math.round(x).toLocaleString("en");
const dec = (x: number, digits: number) => x.toFixed(digits);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const mib = (bytes: number) => dec(bytes / 2 ** 20, 1);

function intro(report: BenchReport): string {
  const { machine: m, options: o } = report;
  const kind = o.complete ? "a full run" : o.quick ? "a quick run (`--quick`)" : "a partial run";
  const pinning = m.pinned
    ? `The server ran pinned to CPU ${m.serverCpus.join(",")}; wrk and the harness to CPU ${m.loadCpus.join(",")}.`
    : "Server and load generator shared the CPUs (one CPU, or no taskset).";
  const env = Object.entries(o.env)
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  const versions = Object.entries(m.versions)
    .map(([name, version]) => `${name} ${version}`)
    .join(", ");
  return `# Benchmark results

${kind} of \`npm run bench\`, ${report.date}, on ${m.cpu} (${m.cores} cores, ${m.memoryGib} GiB), Linux ${m.kernel}.
${pinning} Versions: ${versions}. Source measured: ${m.source}.${env === "" ? "" : ` Extra environment: \`${env}\`.`}

One-minute load average before the run: ${dec(m.loadAverage.start, 2)} (other processes: near 0 on a quiet machine);
at its end: ${dec(m.loadAverage.end, 2)} (the bench itself keeps about 2 busy). See "other on it" below for interference.

Each figure is the median of ${o.repeats} trial(s); each trial starts fresh servers, grows the list by POSTs,
then runs wrk for ${o.seconds} s per scenario (${report.threads} thread(s), ${o.connections} connections; 10 for lists over 1 MiB).
See bench/README.md for what each column means.`;
}

function targetsTable(targets: readonly TargetCheck[]): string {
  const met = (t: TargetCheck) => (t.met === undefined ? "–" : t.met ? "met" : "**missed**");
  return table(
    ["Target", "Runtime", "Measured", "Met"],
    targets.map((t) => [t.target, t.subject, t.value, met(t)]),
    4,
  );
}

/** What each issue's table leaves to be said. */
const TARGET_NOTES: Record<TargetCheck["issue"], string> = {
  [ISSUES.list]: "",
  [ISSUES.small]:
    "\n\nGET at 1,000 and 100,000 tasks ≥ 0.9 × ceiling, also goals of this issue, are checked in issue 5's table above. " +
    "Service, LOG_LEVEL=off: the service started with it, beside the default (info), measured at 2 tasks only.",
};

/** One table of targets per issue. */
function targetSections(targets: readonly TargetCheck[]): string {
  return Object.values(ISSUES)
    .map(
      (issue) =>
        `## Targets of ${issue}\n\n${targetsTable(targets.filter((t) => t.issue === issue))}${TARGET_NOTES[issue]}`,
    )
    .join("\n\n");
}

/** The load generator, not the server, set the pace: wrk's core was saturated and the server's was not. */
function loadBound(r: Row): boolean {
  return r.loadCoresBusy >= 0.95 && r.serverCoreBusy < 0.9;
}

function throughputTable(rows: readonly Row[]): string {
  return table(
    [
      "Runtime",
      "Server",
      "Scenario",
      "Tasks",
      "req/s",
      "× ceiling",
      "× plain Hono",
      "p50 ms",
      "p99 ms",
      "CPU µs/req",
      "KiB/answer",
      "server core",
      "other on it",
      "load core",
      "errors",
    ],
    [...rows]
      .sort(compareRows)
      .map((r) => [
        r.runtime,
        SERVER_LABELS[r.server],
        SCENARIO_LABELS[r.scenario],
        int(r.tasks),
        `${int(r.requestsPerSecond)}${loadBound(r) ? " †" : ""}`,
        r.ceilingRatio === undefined ? "–" : dec(r.ceilingRatio, 2),
        r.honoRatio === undefined ? "–" : dec(r.honoRatio, 2),
        dec(r.p50Ms, 2),
        dec(r.p99Ms, 2),
        dec(r.cpuMicrosPerRequest, 1),
        dec(r.bytesPerResponse / 1024, 1),
        pct(r.serverCoreBusy),
        pct(r.serverCoreOther),
        pct(r.loadCoresBusy),
        int(r.errors),
      ]),
    3,
  );
}

/** Below this many added tasks, RSS growth is garbage-collector noise, not what the list keeps. */
const MEMORY_MIN_TASKS = 10_000;

function memoryTable(memory: readonly MemoryRow[]): string {
  return table(
    ["Runtime", "Server", "Tasks added", "JSON added MiB", "RSS growth MiB", "growth / JSON", "RSS bytes/task"],
    memory
      .filter((m) => m.tasksAdded >= MEMORY_MIN_TASKS)
      .sort(compareRows)
      .map((m) => [
        m.runtime,
        SERVER_LABELS[m.server],
        int(m.tasksAdded),
        mib(m.jsonBytesAdded),
        mib(m.rssGrowthBytes),
        dec(m.growthPerJsonByte, 2),
        int(m.rssBytesPerTask),
      ]),
    2,
  );
}

/** The results as Markdown: targets first, then every median, then memory. */
export function toMarkdown(report: BenchReport, chartFile: string): string {
  return `${intro(report)}

![Requests per second against list size](${chartFile})

${targetSections(report.targets)}

## Throughput, latency and CPU

${throughputTable(report.rows)}

× ceiling: over the same runtime's ceiling GET at the same size for a GET, at 2 tasks for a conditional GET or a POST.
× plain Hono: over the plain Hono peer on the same runtime (Fastify: on Node), same scenario and size; for a conditional GET, over the peer's GET, as it has no ETag.
† wrk's core was saturated while the server's was not: this figure is a floor set by the load generator.

## Memory

${memoryTable(report.memory)}
${
  report.failures.length === 0
    ? ""
    : `
## Failed runs, left out of the medians

${report.failures.map((f) => `- ${f.split("\n")[0]}`).join("\n")}
`
}`;
}
