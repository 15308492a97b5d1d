import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Clock ticks per second, the unit of /proc CPU times. */
export const CLOCK_TICKS = readClockTicks();

function readClockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** CPU time a process has used so far in user and kernel mode (utime + stime), in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may hold spaces, so it is skipped up to its ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Resident memory of a process, in KiB (VmRSS). */
export function rssKib(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (match?.[1] === undefined) throw new Error(`Process ${pid} has no VmRSS: it has probably exited`);
  return Number(match[1]);
}

/** Busy and total clock ticks of each CPU since boot, from /proc/stat. */
export function coreTicks(): Map<number, { busy: number; total: number }> {
  const cores = new Map<number, { busy: number; total: number }>();
  for (const line of readFileSync("/proc/stat", "utf8").split("\n")) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    const ticks = match[2].trim().split(/\s+/).map(Number);
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    cores.set(Number(match[1]), { busy: total - idle, total });
  }
  return cores;
}

/** Busy and total clock ticks of the given CPUs between two {@link coreTicks} readings. */
export function coreTicksBetween(
  before: ReturnType<typeof coreTicks>,
  after: ReturnType<typeof coreTicks>,
  cpus: readonly number[],
): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of cpus) {
    const a = before.get(cpu);
    const b = after.get(cpu);
    if (a === undefined || b === undefined) continue;
    busy += b.busy - a.busy;
    total += b.total - a.total;
  }
  return { busy, total };
}
