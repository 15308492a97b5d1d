import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";

/** Which CPUs run the server under test and which run the load generator and the harness. */
export interface CpuLayout {
  readonly server: readonly number[];
  readonly load: readonly number[];
  /** Whether the two sets are kept apart with taskset; false on one CPU or without taskset. */
  readonly pinned: boolean;
}

/**
 * Gives the server the last CPU and the load generator the others, so that the server never
 * competes with wrk for a core. The server gets one core on any machine, so results are per core.
 */
export function cpuLayout(): CpuLayout {
  const count = availableParallelism();
  const all = Array.from({ length: count }, (_, i) => i);
  const hasTaskset = spawnSync("taskset", ["-V"]).error === undefined;
  if (count < 2 || !hasTaskset) return { server: all, load: all, pinned: false };
  return { server: all.slice(-1), load: all.slice(0, -1), pinned: true };
}

/** The taskset form of a CPU list, or undefined when nothing is pinned. */
export function tasksetList(layout: CpuLayout, cpus: readonly number[]): string | undefined {
  return layout.pinned ? cpus.join(",") : undefined;
}

/** Pins the harness itself beside the load generator, away from the server's core. */
export function pinSelf(layout: CpuLayout): void {
  if (!layout.pinned) return;
  spawnSync("taskset", ["-a", "-p", "-c", layout.load.join(","), String(process.pid)]);
}
