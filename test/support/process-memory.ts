// Resident memory of server processes, read from /proc: what a load test bounds or prints.
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Resident memory of a process in KiB (VmRSS), or 0 when it has exited since it was listed. */
export function residentKib(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** The workerd processes of a process group: wrangler dev's. */
export function workerdProcesses(group: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      // After the name: state, parent pid, process group.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === group && name === "workerd") members.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return members;
}

/**
 * A server's resident memory once the load has stopped: the lowest of a few readings over
 * `settleMs`, so that memory the runtime returns to the system just after the load is not counted.
 */
export async function settledMemoryKib(memoryKib: () => number, settleMs = 1_500): Promise<number> {
  const readings: number[] = [];
  for (let waited = 0; waited <= settleMs; waited += 250) {
    readings.push(memoryKib());
    await sleep(250);
  }
  return Math.min(...readings);
}
