// The live scenario's trials summed up per server and crowd size: medians, as everywhere in the bench.
import { median } from "../lib/summary.ts";
import type { LiveReading } from "./subjects.ts";

/**
 * The trials of one live subject at one crowd size, with a reading's fields: events, missed, unexpected
 * and ended summed over the trials, the max the largest of any, and every other figure their median.
 */
export interface LiveRow extends Omit<LiveReading, "repeat"> {
  readonly trials: number;
  /** Median over the trials of what the idle streams added to the server's RSS, per subscriber, in KiB. */
  readonly kibPerSubscriber: number | undefined;
}

/** Medians of each live subject's trials at each crowd size, in the order of the readings. */
export function summarizeLive(readings: readonly LiveReading[]): LiveRow[] {
  const groups = new Map<string, LiveReading[]>();
  for (const reading of readings) {
    const key = `${reading.subject}|${reading.subscribers}`;
    groups.set(key, [...(groups.get(key) ?? []), reading]);
  }
  return [...groups.values()].map((trials) => {
    const first = trials[0] as LiveReading;
    const med = (pick: (r: LiveReading) => number) => median(trials.map(pick));
    const sum = (pick: (r: LiveReading) => number) => trials.reduce((n, r) => n + pick(r), 0);
    const optional = (pick: (r: LiveReading) => number | undefined) => {
      const values = trials.flatMap((r) => pick(r) ?? []);
      return values.length === 0 ? undefined : median(values);
    };
    return {
      subject: first.subject,
      runtime: first.runtime,
      server: first.server,
      subscribers: first.subscribers,
      trials: trials.length,
      posts: first.posts,
      events: sum((r) => r.events),
      missed: sum((r) => r.missed),
      unexpected: sum((r) => r.unexpected),
      ended: sum((r) => r.ended),
      p50Ms: med((r) => r.p50Ms),
      p99Ms: med((r) => r.p99Ms),
      maxMs: Math.max(...trials.map((r) => r.maxMs)),
      editP50Ms: optional((r) => r.editP50Ms),
      editP99Ms: optional((r) => r.editP99Ms),
      openSeconds: med((r) => r.openSeconds),
      postMs: med((r) => r.postMs),
      serverMicrosPerEvent: med((r) => r.serverMicrosPerEvent),
      clientMicrosPerEvent: med((r) => r.clientMicrosPerEvent),
      rssBeforeKib: optional((r) => r.rssBeforeKib),
      rssOpenKib: optional((r) => r.rssOpenKib),
      rssPostedKib: optional((r) => r.rssPostedKib),
      rssLeftKib: optional((r) => r.rssLeftKib),
      kibPerSubscriber: optional((r) =>
        r.rssOpenKib === undefined || r.rssBeforeKib === undefined
          ? undefined
          : (r.rssOpenKib - r.rssBeforeKib) / r.subscribers,
      ),
    };
  });
}

/** The plain peer's row on the same runtime with as many subscribers, for a row of the service in memory. */
export function peerOf(rows: readonly LiveRow[], row: LiveRow): LiveRow | undefined {
  if (row.server !== "app") return undefined;
  return rows.find((r) => r.server === "hono-live" && r.runtime === row.runtime && r.subscribers === row.subscribers);
}

/** Whether every subscriber got every event, once, and no stream ended early. */
export function deliveredAll(row: LiveRow): boolean {
  return row.missed === 0 && row.unexpected === 0 && row.ended === 0;
}
