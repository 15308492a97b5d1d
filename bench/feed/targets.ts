// Issue 38's targets for the live feed, checked against a run's medians: a catch-up costs about
// what a GET of the list does, small requests wait little beside catch-ups, and stalled
// subscribers do not make a write dearer.
import type { Merged } from "../lib/results.ts";
import { RUNTIMES } from "../lib/subjects.ts";
import type { TargetCheck } from "../lib/target-check.ts";
import { catchUpRatio, scaledRatio, stalledRatio, TARGET_STALLED } from "./ratios.ts";
import type { FeedReading } from "./trial.ts";

/** The list a catch-up's target is about; a run at another size (--quick) does not measure it. */
const CATCH_UP_TASKS = 100_000;
const CATCH_UP_RATIO = 2;
const BUSY_P99_MS = 100;
const STALLED_RATIO = 1.5;

const n = (x: number) => x.toLocaleString("en");
const two = (x: number) => x.toFixed(2);

/** Every target of issue 38, for each runtime; "not measured" where the run lacked what it needs. */
export function checkFeedTargets(feed: readonly Merged<FeedReading>[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const check = (
    target: string,
    subject: string,
    value: number | undefined,
    bound: number,
    text: (v: number) => string,
  ) =>
    checks.push({
      issue: "#38",
      target,
      subject,
      value: value === undefined ? "not measured" : text(value),
      met: value === undefined ? undefined : value <= bound,
    });
  for (const runtime of RUNTIMES) {
    const row = feed.find((r) => r.runtime === runtime);
    for (const [kind, name] of [
      ["sse", "an SSE"],
      ["ws", "a WebSocket"],
    ] as const) {
      const measured = row !== undefined && row.catchUpTasks === CATCH_UP_TASKS;
      check(
        `Live: CPU of ${name} subscriber's catch-up from 0 of ${n(CATCH_UP_TASKS)} tasks ≤ ${CATCH_UP_RATIO} × a GET of the list`,
        runtime,
        measured ? catchUpRatio(row, kind) : undefined,
        CATCH_UP_RATIO,
        (v) =>
          `${two(v)} × (${(kind === "sse" ? row?.sseCpuMs : row?.wsCpuMs)?.toFixed(1)} against ${row?.getCpuMs.toFixed(1)} ms)`,
      );
    }
    check(
      `Live: GET /tasks/2 p99 ≤ ${BUSY_P99_MS} ms while ${row?.busySubscribers ?? 50} SSE subscribers catch up from 0 on ${n(row?.busyTasks ?? 20_000)} tasks`,
      runtime,
      row?.busyGetP99Ms,
      BUSY_P99_MS,
      (v) => `${v.toFixed(1)} ms (alone: ${row?.idleGetP99Ms.toFixed(1)} ms)`,
    );
    for (const [kind, name] of [
      ["sse", "SSE"],
      ["ws", "WebSocket"],
    ] as const) {
      // A Worker cannot see what waits on a WebSocket, so it has no stalled one.
      if (runtime === "workerd" && kind === "ws") continue;
      const stalls = row?.[kind];
      const scaled = row !== undefined && row.stalled !== TARGET_STALLED;
      const text = (v: number) =>
        stalls === undefined || !scaled
          ? `${two(v)} × (${stalls?.cpuStalledUs.toFixed(1)} against ${stalls?.cpuNoneUs.toFixed(1)} µs)`
          : `${two(v)} × (${two(stalledRatio(stalls))} × with ${n(row.stalled)})`;
      check(
        `Live: CPU per PATCH with ${n(TARGET_STALLED)} stalled ${name} subscribers ≤ ${STALLED_RATIO} × with none${scaled ? ` (scaled from ${n(row.stalled)})` : ""}`,
        runtime,
        stalls === undefined || row === undefined ? undefined : scaledRatio(stalls, row.stalled),
        STALLED_RATIO,
        text,
      );
    }
  }
  return checks;
}
