import { liveSection } from "../live/markdown.ts";
import type { LiveRow } from "../live/summary.ts";
import { type ChurnReading, churnSection } from "./churn.ts";
import { compareRows, SCENARIO_LABELS, SERVER_LABELS } from "./labels.ts";
import type { MachineInfo } from "./machine.ts";
import { READ_AFTER_CHANGE_PAIRS, type Scenario } from "./measurements.ts";
import type { BenchOptions } from "./options.ts";
import { cpuMicrosPerPair, type MemoryRow, type Row, readsAfterChange } from "./summary.ts";
import { table } from "./table.ts";
import { ISSUES, LARGE, SMALL, type TargetCheck } from "./targets.ts";

/** Everything a results file holds. */
export interface BenchReport {
  readonly date: string;
  readonly options: BenchOptions;
  readonly machine: MachineInfo;
  readonly threads: number;
  readonly rows: readonly Row[];
  readonly memory: readonly MemoryRow[];
  /** The live scenario's medians. */
  readonly live: readonly LiveRow[];
  /** The create-and-delete scenario's trials. */
  readonly churn: readonly ChurnReading[];
  readonly targets: readonly TargetCheck[];
  /** Runs and trials left out, each with its reason. */
  readonly failures: readonly string[];
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
    "Service, LOG_LEVEL=off: the service started with it, beside the default (info), measured at 2 tasks only. " +
    "Durable Object: the Worker's server CPU per pair (a POST, then a GET answered 304) with its list in a Durable Object, " +
    'minus the same with the list in memory, at the same size: see "Read after a change" below.',
  [ISSUES.live]: '\n\nSee "Live changes" below for how the latencies and the memory per subscriber are measured.',
  [ISSUES.changes]:
    "\n\nPATCH: each request renames a task picked at random in the list, right before the POST run on the same server. " +
    "After 1,000 edits: the list's GET and 304 (with its new ETag) again, once the harness has renamed 1,000 tasks spread over it. " +
    'See "Live changes" for the PATCHes\' events and "Create and delete" for the memory.',
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

/** How the table of reads after a change names each read. */
const READS: Partial<Record<Scenario, string>> = {
  "read-after-change": "GET",
  "read-after-change-304": "GET If-None-Match: * (304)",
};

/**
 * The reads after a change on workerd, size by size: the Worker with its list in memory, then with
 * the Durable Object and what the object adds, per pair of requests (a POST and a GET).
 */
function readAfterChangeSection(rows: readonly Row[], seconds: number): string {
  const reads = readsAfterChange(rows);
  if (reads.length === 0) return "";
  const line = (r: Row, list: string, added: string, ratio: string) => [
    READS[r.scenario] ?? r.scenario,
    int(r.tasks),
    list,
    int(r.requestsPerSecond / 2),
    dec(cpuMicrosPerPair(r), 0),
    dec((2 * r.bytesPerResponse) / 1024, 1),
    pct(r.serverCoreOther),
    added,
    ratio,
  ];
  const lines = reads.flatMap(({ memory, durable, addedMicrosPerPair }) => [
    ...(memory === undefined ? [] : [line(memory, "in memory", "–", "–")]),
    ...(durable === undefined
      ? []
      : [
          line(
            durable,
            "Durable Object",
            addedMicrosPerPair === undefined ? "–" : dec(addedMicrosPerPair, 0),
            memory === undefined ? "–" : dec(durable.requestsPerSecond / memory.requestsPerSecond, 2),
          ),
        ]),
  ]);
  const growths = reads
    .filter((r) => r.tasks === SMALL)
    .flatMap((small) => {
      const large = reads.find((r) => r.scenario === small.scenario && r.tasks === LARGE);
      const growth = (name: string, a: Row | undefined, b: Row | undefined) =>
        a === undefined || b === undefined
          ? []
          : [`${READS[small.scenario]}, ${name}: ${dec(cpuMicrosPerPair(b) / cpuMicrosPerPair(a), 2)} ×`];
      return [
        ...growth("in memory", small.memory, large?.memory),
        ...growth("Durable Object", small.durable, large?.durable),
      ];
    });
  return `
## Read after a change (workerd)

${table(
  [
    "Read",
    "Tasks",
    "List",
    "pairs/s",
    "CPU µs/pair",
    "KiB/pair",
    "other on it",
    "Durable Object adds, CPU µs/pair",
    "× in memory, pairs/s",
  ],
  lines,
  3,
)}

Each connection sends a POST of one task and, pipelined behind it, the read: a GET of the list, or the same GET with If-None-Match: *,
which the service answers 304 after reading the list as for any GET. So every read follows a change. A run ends after about
${int(READ_AFTER_CHANGE_PAIRS)} pairs or ${seconds} s, whichever comes first, adding as many tasks; when the pairs end both runs, both Workers read the same lists.
A GET carries the whole list to the client, which costs more on a longer list whatever the store. What the Durable Object adds
(the RPCs, SQLite, bringing the Worker's copy of the list up to date) is the difference of the two rows, and should not grow with the list:
the 304s, which send no list, measure it without the list's bytes at every size; with GETs, at 100,000 tasks, it is lost in the noise of sending 7 MB.${
    growths.length === 0 ? "" : `\nCPU per pair at ${int(LARGE)} tasks over at ${int(SMALL)}: ${growths.join("; ")}.`
  }
`;
}

/**
 * What an Idempotency-Key costs a POST: the POSTs with a fresh key each against the plain POSTs
 * run just before them on the same server, on Node in memory and on PostgreSQL.
 */
function keyCostSection(rows: readonly Row[]): string {
  const lines = [...rows]
    .filter((r) => r.scenario === "post-key")
    .sort(compareRows)
    .flatMap((keyed) => {
      const plain = rows.find(
        (r) =>
          r.scenario === "post" && r.runtime === keyed.runtime && r.server === keyed.server && r.tasks === keyed.tasks,
      );
      if (plain === undefined) return [];
      return [
        [
          keyed.runtime,
          SERVER_LABELS[keyed.server],
          int(keyed.tasks),
          int(plain.requestsPerSecond),
          int(keyed.requestsPerSecond),
          dec(keyed.requestsPerSecond / plain.requestsPerSecond, 2),
          dec(plain.cpuMicrosPerRequest, 1),
          dec(keyed.cpuMicrosPerRequest, 1),
          dec(keyed.cpuMicrosPerRequest - plain.cpuMicrosPerRequest, 1),
        ],
      ];
    });
  if (lines.length === 0) return "";
  return `
## Idempotency-Key on a POST

${table(
  [
    "Runtime",
    "Server",
    "Tasks",
    "POST req/s",
    "with a key req/s",
    "× POST",
    "CPU µs/POST",
    "with a key",
    "the key adds, CPU µs",
  ],
  lines,
  3,
)}

The same server's POSTs, first plain, then each with a fresh Idempotency-Key (\`wrk/post-key.lua\`), which the
service remembers with the task in the same atomic step: in memory, or in the same PostgreSQL transaction.
`;
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
${readAfterChangeSection(report.rows, report.options.seconds)}${keyCostSection(report.rows)}${liveSection(report.live)}${churnSection(report.churn)}
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
