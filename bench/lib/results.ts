// The results: the medians of each server's trials, merged from the trials of a run.
import { type FeedReading, feedLabel } from "../feed/trial.ts";
import type { KeysReading } from "../keys/trial.ts";
import type { ListsReading } from "../lists/trial.ts";
import type { LiveReading } from "../live/trial.ts";
import type { ChurnReading } from "./churn.ts";
import { median } from "./median.ts";
import type { Runtime, Scenario, ServerKind } from "./subjects.ts";
import type { Measurement, MemoryReading } from "./trial.ts";

/** Trials of one server in one setting, merged: see {@link mergeTrials}. */
export type Merged<T> = T & { readonly trials: number };

/** Every median of a run: what the targets, the tables and the chart read. */
export interface Results {
  readonly rows: readonly Merged<Measurement>[];
  readonly memory: readonly Merged<MemoryReading>[];
  readonly live: readonly Merged<LiveReading>[];
  readonly churn: readonly Merged<ChurnReading>[];
  readonly feed: readonly Merged<FeedReading>[];
  readonly lists: readonly Merged<ListsReading>[];
  readonly keys: readonly Merged<KeysReading>[];
}

/**
 * Merges the trials that share a `key` into one: each number the median of the trials' (those that
 * have it), but the fields `how` names, summed (a single error is worth seeing) or the largest.
 */
function mergeTrials<T extends object>(
  readings: readonly T[],
  key: (reading: T) => string,
  how: Partial<Record<keyof T, "sum" | "max">> = {},
): Merged<T>[] {
  return [...Map.groupBy(readings, key).values()].map((trials) => {
    const merged: Record<string, unknown> = { ...trials[0], trials: trials.length };
    for (const [name, value] of Object.entries(trials[0] ?? {})) {
      if (typeof value !== "number" && value !== undefined) continue;
      const values = trials.flatMap((t) => (t as Record<string, unknown>)[name] ?? []) as number[];
      const rule = how[name as keyof T];
      merged[name] =
        values.length === 0
          ? undefined
          : rule === "sum"
            ? values.reduce((a, b) => a + b, 0)
            : rule === "max"
              ? Math.max(...values)
              : median(values);
    }
    return merged as Merged<T>;
  });
}

/** The feed trials of each runtime merged, their stalled subscribers of each kind too. */
function mergeFeed(readings: readonly FeedReading[]): Merged<FeedReading>[] {
  return mergeTrials(readings, feedLabel).map((merged) => {
    const trials = readings.filter((r) => feedLabel(r) === feedLabel(merged));
    const stalls = (kind: "sse" | "ws") => {
      const found = trials.flatMap((t) => t[kind] ?? []);
      return found.length === 0 ? undefined : mergeTrials(found, () => kind)[0];
    };
    const catchUps = mergeTrials(
      trials.flatMap((t) => t.catchUps),
      (r) => String(r.tasks),
    );
    return { ...merged, catchUps, sse: stalls("sse") ?? merged.sse, ws: stalls("ws") };
  });
}

/** The medians of every kind of trial a run made. */
export function summarize(
  measurements: readonly Measurement[],
  memory: readonly MemoryReading[],
  live: readonly LiveReading[],
  churn: readonly ChurnReading[],
  feed: readonly FeedReading[],
  lists: readonly ListsReading[],
  keys: readonly KeysReading[],
): Results {
  const sums = { events: "sum", missed: "sum", unexpected: "sum", ended: "sum", maxMs: "max" } as const;
  return {
    rows: mergeTrials(measurements, (m) => `${m.runtime}|${m.server}|${m.scenario}|${m.tasks}`, { errors: "sum" }),
    memory: mergeTrials(memory, (m) => `${m.runtime}|${m.server}|${m.tasks}`),
    live: mergeTrials(live, (r) => `${r.runtime}|${r.server}|${r.subscribers}`, sums),
    churn: mergeTrials(churn, (r) => r.runtime),
    feed: mergeFeed(feed),
    lists: mergeTrials(lists, (r) => `${r.runtime}|${r.server}`),
    keys: mergeTrials(keys, (r) => `${r.runtime}|${r.server}`),
  };
}

/** The medians of one server's runs of one scenario at one list size, when the run measured them. */
export function findRow(
  rows: Results["rows"],
  runtime: Runtime,
  server: ServerKind,
  scenario: Scenario,
  tasks: number,
): Merged<Measurement> | undefined {
  return rows.find((r) => r.runtime === runtime && r.server === server && r.scenario === scenario && r.tasks === tasks);
}
