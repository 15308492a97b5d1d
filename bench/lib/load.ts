// The load and how it is read: which CPUs the server and the load generator get, wrk runs, and the
// CPU time /proc charges to the server and to each core over a run.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** Which CPUs run the server under test and which run the load generator and the harness. */
export interface CpuLayout {
  readonly server: readonly number[];
  readonly load: readonly number[];
  /** Whether the two sets are kept apart with taskset; false on one CPU or without taskset. */
  readonly pinned: boolean;
}

/**
 * Gives the server the last CPU and the load generator the others, so that the server never
 * competes with wrk for a core: every figure is what one core serves. Pins the harness itself
 * beside the load generator.
 */
export function cpuLayout(): CpuLayout {
  const all = Array.from({ length: availableParallelism() }, (_, i) => i);
  if (all.length < 2 || spawnSync("taskset", ["-V"]).error !== undefined)
    return { server: all, load: all, pinned: false };
  const layout = { server: all.slice(-1), load: all.slice(0, -1), pinned: true };
  spawnSync("taskset", ["-a", "-p", "-c", layout.load.join(","), String(process.pid)]);
  return layout;
}

/** The taskset form of a CPU list, or undefined when nothing is pinned. */
export function tasksetList(layout: CpuLayout, cpus: readonly number[]): string | undefined {
  return layout.pinned ? cpus.join(",") : undefined;
}

/** The wrk scripts in bench/wrk/, one per scenario. */
export type WrkScript =
  | "get"
  | "conditional-get"
  | "read-after-change"
  | "read-after-change-304"
  | "patch"
  | "post"
  | "post-key"
  | "create-delete";

/** What one wrk run reports, read from the JSON line bench/wrk/bench.lua prints. */
export interface WrkResult {
  readonly requests: number;
  /** How long wrk sent requests: its --duration, or less for a script that ends the run on a count. */
  readonly durationUs: number;
  readonly bytes: number;
  readonly errors: Readonly<Record<"connect" | "read" | "write" | "status" | "timeout", number>>;
  readonly p50Us: number;
  readonly p99Us: number;
}

/** One wrk run: the same for every server, so that results compare. */
export interface WrkLoad {
  readonly url: string;
  readonly script: WrkScript;
  readonly seconds: number;
  readonly threads: number;
  readonly connections: number;
  /** Passed to the Lua scripts: BENCH_ETAG, BENCH_BODY, BENCH_PAIRS, BENCH_TASKS, BENCH_AUTHORIZATION. */
  readonly env?: Readonly<Record<string, string>>;
}

const SCRIPTS = fileURLToPath(new URL("../wrk/", import.meta.url));

/** Stops the run with a message that says how to get wrk when it is missing. */
export function requireWrk(): void {
  if (spawnSync("wrk", ["--version"]).error === undefined) return;
  throw new Error(
    "wrk is not installed, and the benchmark needs it as its load generator: install it with " +
      "`sudo apt-get install wrk` (Debian, Ubuntu), `sudo dnf install wrk` (Fedora), `brew install wrk` (macOS), " +
      "or build it from https://github.com/wg/wrk, then run `npm run bench` again",
  );
}

/** Runs wrk once, on `cpus` when given, and returns its summary. */
export async function runWrk(load: WrkLoad, cpus: string | undefined): Promise<WrkResult> {
  const args = [
    `--threads=${load.threads}`,
    `--connections=${load.connections}`,
    `--duration=${load.seconds}s`,
    "--timeout=10s",
    `--script=${SCRIPTS}${load.script}.lua`,
    load.url,
  ];
  const [file, argv] = cpus === undefined ? ["wrk", args] : ["taskset", ["-c", cpus, "wrk", ...args]];
  const env = { ...process.env, ...load.env, LUA_PATH: `${SCRIPTS}?.lua;;` };
  const { stdout } = await promisify(execFile)(file, argv, { env, maxBuffer: 1024 * 1024 }).catch((error) => {
    throw new Error(`wrk failed on ${load.url}: ${error.message}\n${error.stdout ?? ""}`);
  });
  const line = stdout.split("\n").find((l) => l.startsWith('{"requests"'));
  if (line === undefined) throw new Error(`wrk printed no summary on ${load.url}:\n${stdout}`);
  return JSON.parse(line) as WrkResult;
}

/** Clock ticks per second, the unit of /proc CPU times. */
export const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU time a process has used so far in user and kernel mode (utime + stime), in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may hold spaces, so it is skipped up to its ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Busy and total clock ticks of each CPU since boot, from /proc/stat. */
export function coreTicks(): Map<number, { busy: number; total: number }> {
  const cores = new Map<number, { busy: number; total: number }>();
  for (const match of readFileSync("/proc/stat", "utf8").matchAll(/^cpu(\d+) (.*)$/gm)) {
    const ticks = (match[2] ?? "").trim().split(/\s+/).map(Number).slice(0, 8);
    const total = ticks.reduce((a, b) => a + b, 0);
    cores.set(Number(match[1]), { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total });
  }
  return cores;
}

/** Busy and total clock ticks of `cpus` between two {@link coreTicks} readings. */
export function coreTicksBetween(
  before: ReturnType<typeof coreTicks>,
  after: ReturnType<typeof coreTicks>,
  cpus: readonly number[],
): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of cpus) {
    busy += (after.get(cpu)?.busy ?? 0) - (before.get(cpu)?.busy ?? 0);
    total += (after.get(cpu)?.total ?? 0) - (before.get(cpu)?.total ?? 0);
  }
  return { busy, total };
}

/**
 * One measured wrk run against the server of process `pid`: its rates and latencies, the server's
 * CPU time per request, and how busy the server's core and the load generator's were.
 */
export async function measureRun(pid: number, load: WrkLoad, layout: CpuLayout) {
  const cpuBefore = cpuTicks(pid);
  const coresBefore = coreTicks();
  const wrk = await runWrk(load, tasksetList(layout, layout.load));
  const coresAfter = coreTicks();
  const serverTicks = cpuTicks(pid) - cpuBefore;
  const serverCore = coreTicksBetween(coresBefore, coresAfter, layout.server);
  const loadCores = coreTicksBetween(coresBefore, coresAfter, layout.load);
  const share = (ticks: number, total: number) => (total === 0 ? 0 : ticks / total);
  const requests = Math.max(wrk.requests, 1);
  return {
    requestsPerSecond: wrk.requests / (wrk.durationUs / 1e6),
    p50Ms: wrk.p50Us / 1000,
    p99Ms: wrk.p99Us / 1000,
    cpuMicrosPerRequest: ((serverTicks / CLOCK_TICKS) * 1e6) / requests,
    bytesPerResponse: wrk.bytes / requests,
    errors: Object.values(wrk.errors).reduce((a, b) => a + b, 0),
    serverCoreBusy: share(serverCore.busy, serverCore.total),
    serverCoreOther: Math.max(0, share(serverCore.busy - serverTicks, serverCore.total)),
    loadCoresBusy: share(loadCores.busy, loadCores.total),
  };
}
