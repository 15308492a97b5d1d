import type { Scenario } from "./measurements.ts";
import { RUNTIMES, type Runtime, type ServerKind } from "./servers.ts";
import type { MemoryRow, Row } from "./summary.ts";

/** One of issue 5's targets checked for one runtime (and size or scenario). */
export interface TargetCheck {
  readonly target: string;
  readonly subject: string;
  /** The measured figure, as the target states it. */
  readonly value: string;
  /** Undefined when this run did not measure what the target needs. */
  readonly met: boolean | undefined;
}

/** The list sizes the targets name. */
export const SMALL = 2;
export const LARGE = 100_000;
const SIZES = [SMALL, 1_000, LARGE];

/** "The same rate" and "costs the same" allow this much noise. */
const SAME = 0.9;

const fmt = (x: number) => x.toFixed(2);

/** Checks every target of issue 5 against the medians of a run. */
export function checkTargets(rows: readonly Row[], memory: readonly MemoryRow[]): TargetCheck[] {
  const find = (runtime: Runtime, server: ServerKind, scenario: Scenario, tasks: number) =>
    rows.find((r) => r.runtime === runtime && r.server === server && r.scenario === scenario && r.tasks === tasks);
  const checks: TargetCheck[] = [];
  const add = (target: string, subject: string, value: number | undefined, met: (v: number) => boolean, text = fmt) =>
    checks.push({
      target,
      subject,
      value: value === undefined ? "not measured" : text(value),
      met: value === undefined ? undefined : met(value),
    });

  for (const runtime of RUNTIMES) {
    for (const tasks of SIZES) {
      const get = find(runtime, "app", "get", tasks);
      add(`GET at ${tasks.toLocaleString("en")} tasks ≥ 0.9 × ceiling`, runtime, get?.ceilingRatio, (v) => v >= 0.9);
    }
    const postSmall = find(runtime, "app", "post", SMALL);
    const postLarge = find(runtime, "app", "post", LARGE);
    add("POST at 2 tasks ≥ 0.7 × GET ceiling", runtime, postSmall?.ceilingRatio, (v) => v >= 0.7);
    add("POST at 100,000 tasks ≥ 0.9 × POST at 2", runtime, ratio(postLarge, postSmall), (v) => v >= SAME);
    const condSmall = find(runtime, "app", "conditional-get", SMALL);
    const condLarge = find(runtime, "app", "conditional-get", LARGE);
    add("Conditional GET at 100,000 tasks ≥ 0.9 × at 2", runtime, ratio(condLarge, condSmall), (v) => v >= SAME);
    const mem = memory.find((m) => m.runtime === runtime && m.server === "app" && m.tasks === LARGE);
    add("RSS growth over 100,000 POSTs ≤ 2 × their JSON", runtime, mem?.growthPerJsonByte, (v) => v <= 2);
  }
  for (const row of rows.filter((r) => r.server === "fastify")) {
    const node = find("node", "app", row.scenario, row.tasks);
    add(
      `Ahead of Fastify: ${row.scenario} at ${row.tasks.toLocaleString("en")} tasks`,
      "node",
      ratio(node, row),
      (v) => v > 1,
      (v) => `${fmt(v)} × Fastify`,
    );
  }
  return checks;
}

function ratio(a: Row | undefined, b: Row | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a.requestsPerSecond / b.requestsPerSecond;
}
