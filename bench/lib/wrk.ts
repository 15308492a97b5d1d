import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { start } from "./processes.ts";

const SCRIPTS = fileURLToPath(new URL("../wrk/", import.meta.url));

/** The wrk scripts, one per scenario. */
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
  /** How long wrk sent requests: its --duration, or less for a script that ends the run on a count (read-after-change*.lua, create-delete.lua). */
  readonly durationUs: number;
  readonly bytes: number;
  readonly errors: {
    readonly connect: number;
    readonly read: number;
    readonly write: number;
    readonly status: number;
    readonly timeout: number;
  };
  readonly p50Us: number;
  readonly p99Us: number;
}

/** How to load the server: the same for every server, so that results compare. */
export interface WrkLoad {
  readonly url: string;
  readonly script: WrkScript;
  readonly seconds: number;
  readonly threads: number;
  readonly connections: number;
  /** Passed to the Lua scripts: BENCH_ETAG, BENCH_BODY, BENCH_PAIRS, BENCH_TASKS. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Stops the run with a message that says how to get wrk when it is missing. */
export function requireWrk(): void {
  if (spawnSync("wrk", ["--version"]).error === undefined) return;
  throw new Error(
    "wrk is not installed, and the benchmark needs it as its load generator: install it with " +
      "`sudo apt-get install wrk` (Debian, Ubuntu), `sudo dnf install wrk` (Fedora), `brew install wrk` (macOS), " +
      "or build it from https://github.com/wg/wrk, then run `npm run bench` again",
  );
}

/** Runs wrk once on the given CPUs and returns its summary. */
export async function runWrk(load: WrkLoad, cpus: string | undefined): Promise<WrkResult> {
  const wrk = start(
    {
      command: "wrk",
      args: [
        `--threads=${load.threads}`,
        `--connections=${load.connections}`,
        `--duration=${load.seconds}s`,
        "--timeout=10s",
        `--script=${SCRIPTS}${load.script}.lua`,
        load.url,
      ],
      env: { ...load.env, LUA_PATH: `${SCRIPTS}?.lua;;` },
    },
    cpus,
  );
  const code = await wrk.exited;
  const line = wrk
    .output()
    .split("\n")
    .find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || line === undefined) {
    throw new Error(`wrk failed on ${load.url} (exit ${code}):\n${wrk.output()}`);
  }
  return JSON.parse(line) as WrkResult;
}
