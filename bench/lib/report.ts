// results.md, which shows the results beside the targets, one plain table per scenario.
// bench/README.md says what each figure means.
import { feedTables } from "../feed/report.ts";
import { keysTable } from "../keys/report.ts";
import { listsTables } from "../lists/report.ts";
import type { LiveReading } from "../live/trial.ts";
import type { MachineInfo } from "./machine.ts";
import type { BenchOptions } from "./options.ts";
import { findRow, type Merged, type Results } from "./results.ts";
import { RUNTIMES, type Runtime, SCENARIOS, type Scenario, SERVERS, type ServerKind } from "./subjects.ts";
import { type Column, table } from "./table.ts";
import type { TargetCheck } from "./target-check.ts";
import type { Measurement } from "./trial.ts";

/** Everything results.md shows. */
export interface Report {
  readonly options: BenchOptions;
  readonly machine: MachineInfo;
  readonly results: Results;
  readonly targets: readonly TargetCheck[];
  /** Runs and trials left out, each with its reason. */
  readonly failures: readonly string[];
}

/** Orders rows by runtime, then server, then list size or crowd. */
function byServer<T extends { runtime: Runtime; server: ServerKind; tasks?: number; subscribers?: number }>(
  a: T,
  b: T,
): number {
  const servers = Object.keys(SERVERS);
  return (
    RUNTIMES.indexOf(a.runtime) - RUNTIMES.indexOf(b.runtime) ||
    servers.indexOf(a.server) - servers.indexOf(b.server) ||
    (a.tasks ?? a.subscribers ?? 0) - (b.tasks ?? b.subscribers ?? 0)
  );
}

const int = (x: number) => Math.round(x).toLocaleString("en");
const dec = (digits: number) => (x: number | undefined) => (x === undefined ? "–" : x.toFixed(digits));
const pct = (x: number) => `${Math.round(x * 100)}%`;
const mib = (kib: number | undefined) => (kib === undefined ? "–" : (kib / 1024).toFixed(1));

/**
 * One table per scenario. × ceiling: over the same runtime's ceiling GET, at the same size for a
 * GET, at 2 tasks for the small answers; none for a read after a change, which no ceiling answers
 * like. × plain Hono: over the peer on the same runtime in the same scenario at the same size; for a
 * conditional GET, over its GET (it has no ETag). † the load generator, not the server, set the pace.
 */
function throughputTables(rows: Results["rows"]): string {
  const ceilingRatio = (r: Merged<Measurement>) => {
    if (r.scenario.startsWith("read-after-change")) return undefined;
    const tasks = r.scenario === "get" || r.scenario === "get-edited" ? r.tasks : 2;
    const ceiling = findRow(rows, r.runtime, "ceiling", "get", tasks);
    return ceiling === undefined ? undefined : r.requestsPerSecond / ceiling.requestsPerSecond;
  };
  const honoRatio = (r: Merged<Measurement>) => {
    const scenario = r.scenario === "conditional-get" ? "get" : r.scenario;
    const hono = findRow(rows, r.runtime, "hono", scenario, r.tasks);
    return hono === undefined || r.server === "ceiling" ? undefined : r.requestsPerSecond / hono.requestsPerSecond;
  };
  const loadBound = (r: Merged<Measurement>) => r.loadCoresBusy >= 0.95 && r.serverCoreBusy < 0.9;
  const columns: Column<Merged<Measurement>>[] = [
    ["Runtime", (r) => r.runtime],
    ["Server", (r) => SERVERS[r.server]],
    ["Tasks", (r) => int(r.tasks)],
    ["req/s", (r) => `${int(r.requestsPerSecond)}${loadBound(r) ? " †" : ""}`],
    ["× ceiling", (r) => dec(2)(ceilingRatio(r))],
    ["× plain Hono", (r) => dec(2)(honoRatio(r))],
    ["p50 ms", (r) => dec(2)(r.p50Ms)],
    ["p99 ms", (r) => dec(2)(r.p99Ms)],
    ["CPU µs/req", (r) => dec(1)(r.cpuMicrosPerRequest)],
    ["KiB/answer", (r) => dec(1)(r.bytesPerResponse / 1024)],
    ["server core", (r) => pct(r.serverCoreBusy)],
    ["other on it", (r) => pct(r.serverCoreOther)],
    ["load core", (r) => pct(r.loadCoresBusy)],
    ["errors", (r) => int(r.errors)],
  ];
  return (Object.keys(SCENARIOS) as Scenario[])
    .map((scenario) => [scenario, rows.filter((r) => r.scenario === scenario).sort(byServer)] as const)
    .filter(([, found]) => found.length > 0)
    .map(([scenario, found]) => `## ${SCENARIOS[scenario]}\n\n${table(found, columns, 2)}`)
    .join("\n\n");
}

/** RSS growth over fewer added tasks is the garbage collector's noise, not what the list keeps. */
const MEMORY_MIN_TASKS = 10_000;

function memoryTable(memory: Results["memory"]): string {
  const rows = memory.filter((m) => m.tasksAdded >= MEMORY_MIN_TASKS).sort(byServer);
  if (rows.length === 0) return "";
  return `## Memory\n\n${table(
    rows,
    [
      ["Runtime", (m) => m.runtime],
      ["Server", (m) => SERVERS[m.server]],
      ["Tasks added", (m) => int(m.tasksAdded)],
      ["JSON added MiB", (m) => mib(m.jsonBytesAdded / 1024)],
      ["RSS growth MiB", (m) => mib(m.rssGrowthKib)],
      ["growth / JSON", (m) => dec(2)((m.rssGrowthKib * 1024) / m.jsonBytesAdded)],
      ["RSS bytes/task", (m) => int((m.rssGrowthKib * 1024) / m.tasksAdded)],
    ],
    2,
  )}`;
}

function liveTables(live: Results["live"]): string {
  const rows = [...live].sort(byServer);
  const first: Column<Merged<LiveReading>>[] = [
    ["Runtime", (r) => r.runtime],
    ["Server", (r) => SERVERS[r.server]],
    ["Subscribers", (r) => int(r.subscribers)],
  ];
  const latency = table(
    rows,
    [
      ...first,
      ["POSTs", (r) => `${r.posts} × ${r.trials}`],
      ["p50 ms", (r) => dec(1)(r.p50Ms)],
      ["p99 ms", (r) => dec(1)(r.p99Ms)],
      ["max ms", (r) => dec(1)(r.maxMs)],
      ["PATCH p50 ms", (r) => dec(1)(r.editP50Ms)],
      ["PATCH p99 ms", (r) => dec(1)(r.editP99Ms)],
      ["POST ms", (r) => dec(1)(r.postMs)],
      ["server CPU µs/event", (r) => dec(1)(r.serverMicrosPerEvent)],
      ["client CPU µs/event", (r) => dec(1)(r.clientMicrosPerEvent)],
      ["opening s", (r) => dec(1)(r.openSeconds)],
      ["missed", (r) => int(r.missed + r.unexpected + r.ended)],
    ],
    2,
  );
  const memory = table(
    rows.filter((r) => r.kibPerSubscriber !== undefined),
    [
      ...first,
      ["RSS before MiB", (r) => mib(r.rssBeforeKib)],
      ["idle streams open MiB", (r) => mib(r.rssOpenKib)],
      ["KiB/subscriber", (r) => dec(1)(r.kibPerSubscriber)],
      ["after the POSTs MiB", (r) => mib(r.rssPostedKib)],
      ["after they left MiB", (r) => mib(r.rssLeftKib)],
    ],
    2,
  );
  return `## Live changes\n\n${latency}\n\n${memory}`;
}

function churnTable(churn: Results["churn"]): string {
  return `## Create and delete\n\n${table(
    churn,
    [
      ["Runtime", (r) => r.runtime],
      ["Pairs", (r) => `${int(r.pairs)} × ${r.trials}`],
      ["pairs/s", (r) => int(r.pairsPerSecond)],
      ["RSS fresh MiB", (r) => mib(r.rssFreshKib)],
      ["after 20,000 MiB", (r) => mib(r.rssBaselineKib)],
      ["after all MiB", (r) => mib(r.rssAfterKib)],
      ["RSS growth KiB", (r) => dec(0)(r.rssGrowthKib)],
      ["heap growth KiB", (r) => dec(0)(r.heapGrowthKib)],
    ],
    1,
  )}`;
}

/** The header: what ran, where, with what. */
function intro({ machine: m, options: o }: Report): string {
  const kind = o.complete ? "A full run" : o.quick ? "A quick run (`--quick`)" : "A partial run";
  const pinning = m.pinned
    ? `The server ran pinned to CPU ${m.serverCpus.join(",")}; wrk and the harness to CPU ${m.loadCpus.join(",")}.`
    : "Server and load generator shared the CPUs (one CPU, or no taskset).";
  const env = Object.entries(o.env).map(([name, value]) => ` \`${name}=${value}\``);
  const versions = Object.entries(m.versions).map(([name, version]) => `${name} ${version}`);
  return `# Benchmark results

${kind} of \`npm run bench\`, ${m.date}, on ${m.cpu} (${m.cores} cores, ${m.memoryGib} GiB), Linux ${m.kernel}.
${pinning} Versions: ${versions.join(", ")}. Source measured: ${m.source}.${env.length === 0 ? "" : ` Extra environment:${env.join("")}.`}
One-minute load average at the start: ${m.loadAverage.start.toFixed(2)}; at the end: ${m.loadAverage.end.toFixed(2)}.
Medians of ${o.repeats} trial(s); wrk runs of ${o.seconds} s, ${o.connections} connections. See bench/README.md for what each figure means.`;
}

/** results.md: the header, the chart, the targets, then every median, table by table. */
export function toMarkdown(report: Report, chartFile: string): string {
  const { results, targets, failures } = report;
  const met = (t: TargetCheck) => (t.met === undefined ? "–" : t.met ? "met" : "**missed**");
  const sections = [
    intro(report),
    `![Requests per second against list size](${chartFile})`,
    `## Targets\n\n${table(
      targets,
      [
        ["Issue", (t) => t.issue],
        ["Target", (t) => t.target],
        ["Runtime", (t) => t.subject],
        ["Measured", (t) => t.value],
        ["Met", met],
      ],
      5,
    )}`,
    throughputTables(results.rows),
    memoryTable(results.memory),
    results.live.length === 0 ? "" : liveTables(results.live),
    results.churn.length === 0 ? "" : churnTable(results.churn),
    results.feed.length === 0 ? "" : feedTables(results.feed),
    results.lists.length === 0 ? "" : listsTables(results.lists),
    results.keys.length === 0 ? "" : keysTable(results.keys),
    failures.length === 0
      ? ""
      : `## Failed runs, left out of the medians\n\n${failures.map((f) => `- ${f.split("\n")[0]}`).join("\n")}`,
  ];
  return `${sections
    .filter((s) => s !== "")
    .join("\n\n")
    .trimEnd()}\n`;
}
