// The live feed's targets, checked against a run's medians: a catch-up costs about what a GET of
// the list does (issue 43), small requests wait little beside catch-ups, and stalled subscribers
// do not make a write dearer (issue 38).
import type { Merged } from "../lib/results.ts";
import { RUNTIMES } from "../lib/subjects.ts";
import type { TargetCheck } from "../lib/target-check.ts";
import { catchUpRatio, scaledRatio, stalledRatio, TARGET_STALLED } from "./ratios.ts";
import { type FeedReading, feedLabel, stallTransports } from "./trial.ts";

/** The lists a catch-up's target is about; a run without one of them (--quick) does not measure it there. */
const CATCH_UP_TASKS = [20_000, 100_000];
/** A catch-up's CPU over a GET's, at most: a WebSocket frames each event, and its runtimes write frames dearer. */
const CATCH_UP_RATIOS = { sse: 2, ws: 3 } as const;
const BUSY_P99_MS = 100;
const STALLED_RATIO = 1.5;

const n = (x: number) => x.toLocaleString("en");
const two = (x: number) => x.toFixed(2);

/** Every target of the feed, for each runtime; "not measured" where the run lacked what it needs. */
export function checkFeedTargets(feed: readonly Merged<FeedReading>[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const check = (
    target: string,
    subject: string,
    value: number | undefined,
    bound: number,
    text: (v: number) => string,
    issue = "#38",
  ) =>
    checks.push({
      issue,
      target,
      subject,
      value: value === undefined ? "not measured" : text(value),
      met: value === undefined ? undefined : value <= bound,
    });
  // Every runtime's service with its list in memory, measured or not; a Durable Object where measured.
  const subjects = [
    ...RUNTIMES.map((runtime) => ({ runtime, server: "app" as const })),
    ...feed.filter((r) => r.server === "app-durable"),
  ];
  for (const subject of subjects) {
    const label = feedLabel(subject);
    const row = feed.find((r) => feedLabel(r) === label);
    for (const tasks of CATCH_UP_TASKS) {
      const size = row?.catchUps.find((r) => r.tasks === tasks);
      for (const [kind, name] of [
        ["sse", "an SSE"],
        ["ws", "a WebSocket"],
      ] as const) {
        check(
          `Live: CPU of ${name} subscriber's catch-up from 0 of ${n(tasks)} tasks ≤ ${CATCH_UP_RATIOS[kind]} × a GET of the list`,
          label,
          size === undefined ? undefined : catchUpRatio(size, kind),
          CATCH_UP_RATIOS[kind],
          (v) =>
            `${two(v)} × (${(kind === "sse" ? size?.sseCpuMs : size?.wsCpuMs)?.toFixed(1)} against ${size?.getCpuMs.toFixed(1)} ms)`,
          "#43",
        );
      }
    }
    check(
      `Live: GET /tasks/2 p99 ≤ ${BUSY_P99_MS} ms while ${row?.busySubscribers ?? 50} SSE subscribers catch up from 0 on ${n(row?.busyTasks ?? 20_000)} tasks`,
      label,
      row?.busyGetP99Ms,
      BUSY_P99_MS,
      (v) => `${v.toFixed(1)} ms (alone: ${row?.idleGetP99Ms.toFixed(1)} ms)`,
    );
    check(
      `Live: GET /tasks/2 p99 ≤ ${BUSY_P99_MS} ms while ${row?.busySubscribers ?? 50} WebSocket subscribers catch up from 0 on ${n(row?.busyTasks ?? 20_000)} tasks`,
      label,
      row?.busyWsGetP99Ms,
      BUSY_P99_MS,
      (v) => `${v.toFixed(1)} ms (alone: ${row?.idleGetP99Ms.toFixed(1)} ms)`,
      "#43",
    );
    for (const [kind, name] of [
      ["sse", "SSE"],
      ["ws", "WebSocket"],
    ] as const) {
      if (!stallTransports(subject.runtime, subject.server).includes(kind)) continue;
      const stalls = row?.[kind];
      const scaled = row !== undefined && row.stalled !== TARGET_STALLED;
      const text = (v: number) =>
        stalls === undefined || !scaled
          ? `${two(v)} × (${stalls?.cpuStalledUs.toFixed(1)} against ${stalls?.cpuNoneUs.toFixed(1)} µs)`
          : `${two(v)} × (${two(stalledRatio(stalls))} × with ${n(row.stalled)})`;
      check(
        `Live: CPU per PATCH with ${n(TARGET_STALLED)} stalled ${name} subscribers ≤ ${STALLED_RATIO} × with none${scaled ? ` (scaled from ${n(row.stalled)})` : ""}`,
        label,
        stalls === undefined || row === undefined ? undefined : scaledRatio(stalls, row.stalled),
        STALLED_RATIO,
        text,
      );
    }
  }
  return checks;
}
