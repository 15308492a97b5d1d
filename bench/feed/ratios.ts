// The ratios of the feed scenario, which its table and its targets both show.
import type { CatchUpReading } from "./catch-up.ts";
import type { StalledReading } from "./stalled.ts";

/** The crowd the PATCH target names; a run with fewer stalled subscribers is scaled to it. */
export const TARGET_STALLED = 1_000;

/** A catch-up's CPU over a GET's, of the same list. */
export function catchUpRatio(row: CatchUpReading, transport: "sse" | "ws"): number {
  return (transport === "sse" ? row.sseCpuMs : row.wsCpuMs) / row.getCpuMs;
}

/** CPU per PATCH with the stalled subscribers over with none. */
export function stalledRatio(stalls: StalledReading): number {
  return stalls.cpuStalledUs / stalls.cpuNoneUs;
}

/**
 * The same ratio for {@link TARGET_STALLED} stalled subscribers, from `stalled` of them: what each adds
 * to a PATCH, times the target's crowd. Each costs the same whatever the others do (a look when a change
 * comes, or a timer of its own), so what they add grows with their number.
 */
export function scaledRatio(stalls: StalledReading, stalled: number): number {
  return 1 + ((stalledRatio(stalls) - 1) * TARGET_STALLED) / stalled;
}
