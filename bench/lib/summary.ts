import {
  INITIAL_TASKS,
  type Measurement,
  type MemoryReading,
  READ_AFTER_CHANGE,
  type Scenario,
} from "./measurements.ts";
import type { Runtime, ServerKind } from "./servers.ts";

/** The medians of one server's runs of one scenario at one list size. */
export interface Row {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  readonly scenario: Scenario;
  readonly tasks: number;
  readonly runs: number;
  readonly requestsPerSecond: number;
  /**
   * Median requests per second over the median of the same runtime's ceiling GET: at the same size
   * for a GET (after edits too); at 2 tasks for a conditional GET, a PATCH or a POST, whose answers are small at any size.
   */
  readonly ceilingRatio: number | undefined;
  /**
   * Median requests per second over the median of the plain Hono peer on the same runtime, in the
   * same scenario at the same size; for a conditional GET, over the peer's GET (it has no ETag).
   * Undefined for ceilings, and when the peer was not measured.
   */
  readonly honoRatio: number | undefined;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuMicrosPerRequest: number;
  readonly bytesPerResponse: number;
  /** Summed over the runs, not a median: one error is worth seeing. */
  readonly errors: number;
  readonly serverCoreBusy: number;
  readonly serverCoreOther: number;
  readonly loadCoresBusy: number;
}

/** The medians of one server's memory readings at one list size. */
export interface MemoryRow {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  readonly tasks: number;
  readonly runs: number;
  readonly tasksAdded: number;
  readonly jsonBytesAdded: number;
  readonly rssGrowthBytes: number;
  /** RSS growth over the JSON size of the added tasks; the target is at most 2. */
  readonly growthPerJsonByte: number;
  readonly rssBytesPerTask: number;
}

/** The middle value; the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}

/**
 * Medians of every server, scenario and size, with each one's ratios to its runtime's ceiling and
 * to the plain Hono peer on its runtime: ratios of medians of the same run, whose trials alternate
 * server by server within each repeat.
 */
export function summarize(measurements: readonly Measurement[]): Row[] {
  const groups = groupBy(measurements, (m) => `${m.runtime}|${m.server}|${m.scenario}|${m.tasks}`);
  const rows = [...groups.values()].map((runs) => {
    const first = runs[0] as Measurement;
    const med = (pick: (m: Measurement) => number) => median(runs.map(pick));
    return {
      runtime: first.runtime,
      server: first.server,
      scenario: first.scenario,
      tasks: first.tasks,
      runs: runs.length,
      requestsPerSecond: med((m) => m.requestsPerSecond),
      p50Ms: med((m) => m.p50Ms),
      p99Ms: med((m) => m.p99Ms),
      cpuMicrosPerRequest: med((m) => m.cpuMicrosPerRequest),
      bytesPerResponse: med((m) => m.bytesPerResponse),
      errors: runs.reduce((sum, m) => sum + m.errors, 0),
      serverCoreBusy: med((m) => m.serverCoreBusy),
      serverCoreOther: med((m) => m.serverCoreOther),
      loadCoresBusy: med((m) => m.loadCoresBusy),
    };
  });
  return rows.map((row) => {
    const tasks = row.scenario === "get" || row.scenario === "get-edited" ? row.tasks : INITIAL_TASKS;
    const ceiling = rows.find(
      (r) => r.server === "ceiling" && r.scenario === "get" && r.runtime === row.runtime && r.tasks === tasks,
    );
    const honoScenario = row.scenario === "conditional-get" ? "get" : row.scenario;
    const hono = rows.find(
      (r) => r.server === "hono" && r.scenario === honoScenario && r.runtime === row.runtime && r.tasks === row.tasks,
    );
    return {
      ...row,
      // A read after a change answers two requests of different kinds: no ceiling answers like it.
      ceilingRatio:
        ceiling === undefined || READ_AFTER_CHANGE.includes(row.scenario)
          ? undefined
          : row.requestsPerSecond / ceiling.requestsPerSecond,
      honoRatio:
        hono === undefined || row.server === "ceiling" ? undefined : row.requestsPerSecond / hono.requestsPerSecond,
    };
  });
}

/**
 * A read after a change (a POST, then a GET of the list, on each connection; or the same with the
 * GET answered 304) at one list size, on the Worker with its list in a Durable Object and on the
 * same Worker with its list in memory.
 */
export interface ReadAfterChange {
  readonly scenario: Scenario;
  readonly tasks: number;
  readonly memory: Row | undefined;
  readonly durable: Row | undefined;
  /**
   * Server CPU µs per pair (a POST and a GET) the Durable Object costs over the list in memory,
   * difference of the two rows' medians; undefined unless both were measured.
   */
  readonly addedMicrosPerPair: number | undefined;
}

/** Server CPU µs per pair of a row of a read after a change, whose requests are half POSTs, half GETs. */
export function cpuMicrosPerPair(row: Row): number {
  return 2 * row.cpuMicrosPerRequest;
}

/** The reads after a change measured, by scenario and list size. */
export function readsAfterChange(rows: readonly Row[]): ReadAfterChange[] {
  const measured = rows.filter((r) => r.runtime === "workerd" && READ_AFTER_CHANGE.includes(r.scenario));
  const on = (server: ServerKind, scenario: Scenario, tasks: number) =>
    measured.find((r) => r.server === server && r.scenario === scenario && r.tasks === tasks);
  return READ_AFTER_CHANGE.flatMap((scenario) =>
    [...new Set(measured.filter((r) => r.scenario === scenario).map((r) => r.tasks))]
      .sort((a, b) => a - b)
      .map((tasks) => {
        const memory = on("app", scenario, tasks);
        const durable = on("app-durable", scenario, tasks);
        return {
          scenario,
          tasks,
          memory,
          durable,
          addedMicrosPerPair:
            memory === undefined || durable === undefined
              ? undefined
              : cpuMicrosPerPair(durable) - cpuMicrosPerPair(memory),
        };
      }),
  );
}

/** Medians of the memory readings of every server and size. */
export function summarizeMemory(readings: readonly MemoryReading[]): MemoryRow[] {
  const groups = groupBy(readings, (r) => `${r.runtime}|${r.server}|${r.tasks}`);
  return [...groups.values()].map((runs) => {
    const first = runs[0] as MemoryReading;
    const rssGrowthBytes = median(runs.map((r) => (r.rssAfterKib - r.rssBeforeKib) * 1024));
    const jsonBytesAdded = median(runs.map((r) => r.jsonBytesAdded));
    return {
      runtime: first.runtime,
      server: first.server,
      tasks: first.tasks,
      runs: runs.length,
      tasksAdded: first.tasksAdded,
      jsonBytesAdded,
      rssGrowthBytes,
      growthPerJsonByte: rssGrowthBytes / jsonBytesAdded,
      rssBytesPerTask: rssGrowthBytes / first.tasksAdded,
    };
  });
}
