// The feed scenario's tables in results.md: catching up, small GETs during catch-ups, and PATCHes
// with stalled subscribers. bench/README.md says what each figure means.

import type { Merged } from "../lib/results.ts";
import { RUNTIMES } from "../lib/subjects.ts";
import { table } from "../lib/table.ts";
import type { CatchUpReading } from "./catch-up.ts";
import { catchUpRatio, stalledRatio } from "./ratios.ts";
import type { StalledReading } from "./stalled.ts";
import { type FeedReading, feedLabel } from "./trial.ts";

type Row = Merged<FeedReading>;
const int = (x: number) => Math.round(x).toLocaleString("en");
const dec = (digits: number) => (x: number) => x.toFixed(digits);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** The three tables of the feed scenario, runtime by runtime. */
export function feedTables(feed: readonly Row[]): string {
  const order = (row: Row) => RUNTIMES.indexOf(row.runtime) * 2 + (row.server === "app-durable" ? 1 : 0);
  const rows = [...feed].sort((a, b) => order(a) - order(b));
  const catchUp = table<{ row: Row; size: CatchUpReading }>(
    rows.flatMap((row) => row.catchUps.map((size) => ({ row, size }))),
    [
      ["Runtime", ({ row }) => feedLabel(row)],
      ["Tasks", ({ size }) => int(size.tasks)],
      ["list MiB", ({ size }) => mib(size.listBytes)],
      ["GET CPU ms", ({ size }) => dec(1)(size.getCpuMs)],
      ["SSE catch-up CPU ms", ({ size }) => dec(1)(size.sseCpuMs)],
      ["SSE × GET", ({ size }) => dec(2)(catchUpRatio(size, "sse"))],
      ["SSE MiB", ({ size }) => mib(size.sseBytes)],
      ["WebSocket catch-up CPU ms", ({ size }) => dec(1)(size.wsCpuMs)],
      ["WebSocket × GET", ({ size }) => dec(2)(catchUpRatio(size, "ws"))],
      ["WebSocket MiB", ({ size }) => mib(size.wsBytes)],
      ["trials", ({ row }) => int(row.trials)],
    ],
    1,
  );
  const busy = table(
    rows,
    [
      ["Runtime", (r) => feedLabel(r)],
      ["Tasks", (r) => int(r.busyTasks)],
      ["subscribers", (r) => int(r.busySubscribers)],
      ["GETs", (r) => int(r.busyGets)],
      ["alone p50 ms", (r) => dec(2)(r.idleGetP50Ms)],
      ["alone p99 ms", (r) => dec(2)(r.idleGetP99Ms)],
      ["during p50 ms", (r) => dec(2)(r.busyGetP50Ms)],
      ["during p99 ms", (r) => dec(2)(r.busyGetP99Ms)],
      ["catch-ups done", (r) => int(r.busyCatchUps)],
      ["WebSocket GETs", (r) => int(r.busyWsGets)],
      ["WebSocket p50 ms", (r) => dec(2)(r.busyWsGetP50Ms)],
      ["WebSocket p99 ms", (r) => dec(2)(r.busyWsGetP99Ms)],
      ["WebSocket catch-ups done", (r) => int(r.busyWsCatchUps)],
      ["other on it", (r) => `${Math.round(r.busyServerCoreOther * 100)}%`],
    ],
    1,
  );
  const stalls = rows.flatMap((r) =>
    (["sse", "ws"] as const).flatMap((kind) => {
      const reading = r[kind];
      return reading === undefined ? [] : [{ row: r, kind, reading }];
    }),
  );
  const stalled = table<{ row: Row; kind: "sse" | "ws"; reading: StalledReading }>(
    stalls,
    [
      ["Runtime", ({ row }) => feedLabel(row)],
      ["Subscribers", ({ kind }) => (kind === "sse" ? "SSE" : "WebSocket")],
      ["stalled", ({ row }) => int(row.stalled)],
      ["PATCHes none / stalled", ({ reading }) => `${int(reading.patchesNone)} / ${int(reading.patchesStalled)}`],
      ["CPU µs/PATCH, none", ({ reading }) => dec(1)(reading.cpuNoneUs)],
      ["with stalled", ({ reading }) => dec(1)(reading.cpuStalledUs)],
      ["× none", ({ reading }) => dec(2)(stalledRatio(reading))],
      ["idle CPU ms/s", ({ reading }) => dec(1)(reading.idleCpuMsPerS)],
      ["kernel KiB each", ({ reading }) => int(reading.heldKibEach)],
      ["RSS KiB each", ({ reading }) => int(reading.rssKibEach)],
      ["still connected", ({ reading }) => int(reading.connectedAfter)],
    ],
    2,
  );
  return [
    `## Live feed: catching up from 0\n\n${catchUp}`,
    `## Live feed: GET /tasks/2 while subscribers catch up\n\n${busy}`,
    `## Live feed: PATCH with stalled subscribers\n\n${stalled}`,
  ].join("\n\n");
}
