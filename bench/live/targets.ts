// Issue 19's targets for live changes, checked against the live scenario's medians.
import { ISSUES, type TargetCheck } from "../lib/targets.ts";
import type { LiveRuntime } from "./subjects.ts";
import { deliveredAll, type LiveRow, peerOf } from "./summary.ts";

/** Delivery latency targets: p99 in ms at each crowd size, on one process with the list in memory. */
const P99_TARGETS: readonly (readonly [subscribers: number, ms: number])[] = [
  [1_000, 50],
  [10_000, 250],
];
/** Across processes on PostgreSQL, at the scenario's 1,000 subscribers. */
const POSTGRES_P99_MS = 1_000;
const POSTGRES_SUBSCRIBERS = 1_000;
/** Memory per idle subscriber on Node, over 10,000 streams. */
const NODE_KIB_PER_SUBSCRIBER = 8;
const MEMORY_SUBSCRIBERS = 10_000;
/**
 * "The service's fan-out at least matches the peer": its p99 at most this many times the peer's,
 * the tenth of noise the bench allows rates ("the same rate" is 0.9 ×).
 */
export const PEER_P99_RATIO = 1.1;
const RUNTIMES: readonly LiveRuntime[] = ["node", "bun", "deno"];

const ms = (x: number) => `${x.toFixed(1)} ms`;

/** Checks issue 19's speed and scale targets; a row where events went missing misses its latency target. */
export function checkLiveTargets(rows: readonly LiveRow[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const add = (target: string, subject: string, value: string | undefined, met: boolean | undefined) =>
    checks.push({ issue: ISSUES.live, target, subject, value: value ?? "not measured", met });
  /** The latency, and what went missing when something did. */
  const latency = (row: LiveRow) =>
    deliveredAll(row)
      ? ms(row.p99Ms)
      : `${ms(row.p99Ms)}, but ${row.missed} event(s) missed, ${row.unexpected} unexpected, ${row.ended} stream(s) ended`;
  const find = (runtime: LiveRuntime, server: LiveRow["server"], subscribers: number) =>
    rows.find((r) => r.runtime === runtime && r.server === server && r.subscribers === subscribers);

  for (const runtime of RUNTIMES) {
    for (const [subscribers, limit] of P99_TARGETS) {
      const row = find(runtime, "app", subscribers);
      add(
        `Live: p99 from a POST's answer to its event ≤ ${limit} ms with ${subscribers.toLocaleString("en")} subscribers`,
        runtime,
        row === undefined ? undefined : latency(row),
        row === undefined ? undefined : deliveredAll(row) && row.p99Ms <= limit,
      );
    }
  }
  const postgres = find("node", "app-postgres", POSTGRES_SUBSCRIBERS);
  add(
    `Live across two processes on PostgreSQL: p99 ≤ ${POSTGRES_P99_MS} ms with ${POSTGRES_SUBSCRIBERS.toLocaleString("en")} subscribers`,
    "node",
    postgres === undefined ? undefined : latency(postgres),
    postgres === undefined ? undefined : deliveredAll(postgres) && postgres.p99Ms <= POSTGRES_P99_MS,
  );
  const memory = find("node", "app", MEMORY_SUBSCRIBERS)?.kibPerSubscriber;
  add(
    `Live: RSS per idle subscriber ≤ ${NODE_KIB_PER_SUBSCRIBER} KiB over ${MEMORY_SUBSCRIBERS.toLocaleString("en")} streams`,
    "node",
    memory === undefined ? undefined : `${memory.toFixed(1)} KiB`,
    memory === undefined ? undefined : memory <= NODE_KIB_PER_SUBSCRIBER,
  );
  // Issue 27: an edit reaches the subscribers as soon as a creation does.
  for (const runtime of RUNTIMES) {
    const [subscribers, limit] = P99_TARGETS[0] ?? [1_000, 50];
    const row = find(runtime, "app", subscribers);
    checks.push({
      issue: ISSUES.changes,
      target: `Live: p99 from a PATCH's answer to its update ≤ ${limit} ms with ${subscribers.toLocaleString("en")} subscribers, as a POST's`,
      subject: runtime,
      value: row?.editP99Ms === undefined ? "not measured" : `${ms(row.editP99Ms)} (POST: ${latency(row)})`,
      met: row?.editP99Ms === undefined ? undefined : deliveredAll(row) && row.editP99Ms <= limit,
    });
  }
  for (const row of rows.filter((r) => r.server === "app")) {
    const peer = peerOf(rows, row);
    add(
      `Live: fan-out p99 ≤ ${PEER_P99_RATIO} × plain Hono's with ${row.subscribers.toLocaleString("en")} subscribers`,
      row.runtime,
      peer === undefined
        ? undefined
        : `${(row.p99Ms / peer.p99Ms).toFixed(2)} × (${ms(row.p99Ms)} against ${ms(peer.p99Ms)})`,
      peer === undefined ? undefined : deliveredAll(row) && row.p99Ms <= PEER_P99_RATIO * peer.p99Ms,
    );
  }
  return checks;
}
