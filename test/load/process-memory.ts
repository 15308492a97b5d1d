import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { Runtime } from "../support/server.ts";

/** Resident memory of a process in KiB (VmRSS), or 0 when it has exited since it was listed. */
function residentKib(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** The processes of a process group whose command name is `command`. */
function groupMembers(group: number, command: string): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      // After the name: state, parent pid, process group.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === group && name === command) members.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return members;
}

/**
 * Resident memory, in KiB, of the processes that hold the list: the server process itself on
 * Node, Bun and Deno; for wrangler dev, its workerd processes (the Worker's runtime and the dev
 * proxy in front of it), leaving out wrangler's own Node processes, which hold no task.
 */
export function serverMemoryKib(runtime: Runtime, pid: number): number {
  const pids = runtime === "wrangler" ? groupMembers(pid, "workerd") : [pid];
  return pids.reduce((sum, member) => sum + residentKib(member), 0);
}

/**
 * The server's resident memory once the load has stopped: the lowest of a few readings over
 * `settleMs`, so that memory the runtime returns to the system just after the load is not counted.
 */
export async function settledMemoryKib(runtime: Runtime, pid: number, settleMs = 1_500): Promise<number> {
  const readings: number[] = [];
  for (let waited = 0; waited <= settleMs; waited += 250) {
    readings.push(serverMemoryKib(runtime, pid));
    await sleep(250);
  }
  return Math.min(...readings);
}
