// What the results were measured on, written beside them: the machine, the runtimes' versions, the
// commit, and how busy the machine was.
import { execFileSync } from "node:child_process";
import { cpus, loadavg, release, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import type { CpuLayout } from "./load.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What the results were measured on, written beside them. */
export interface MachineInfo {
  /** When the run ended. */
  readonly date: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGib: number;
  readonly kernel: string;
  readonly serverCpus: readonly number[];
  readonly loadCpus: readonly number[];
  readonly pinned: boolean;
  readonly versions: Readonly<Record<string, string>>;
  /** The commit measured, with "+ changes" when src/ differed from it. */
  readonly source: string;
  /** One-minute load averages when the run began and ended: above about 1, something else was running too. */
  readonly loadAverage: { readonly start: number; readonly end: number };
}

function firstLine(file: string, args: string[]): string {
  try {
    const out = execFileSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return out.split("\n")[0]?.trim() ?? "";
  } catch (error) {
    // wrk prints its version in its usage text and exits 1.
    const out = String((error as { stdout?: unknown }).stdout ?? "");
    return out.split("\n")[0]?.trim() || "unknown";
  }
}

/** The bare version number a program prints, without its name or build details. */
function version(file: string): string {
  const line = firstLine(file, ["--version"]);
  return /v?\d[\w.+-]*(?:\/[\w.+-]+)?/.exec(line.replace(/^\S+ /, ""))?.[0] ?? line;
}

function source(): string {
  const git = (...args: string[]) => firstLine("git", ["-C", ROOT, ...args]);
  const changed = execFileSync("git", ["-C", ROOT, "status", "--porcelain", "src"], { encoding: "utf8" }).trim() !== "";
  return `${git("rev-parse", "--short", "HEAD")}${changed ? " + changes in src/" : ""}`;
}

/** The one-minute load average now. */
export function loadNow(): number {
  return loadavg()[0] ?? 0;
}

/** Describes this machine, the runtimes' versions and the CPU pinning; `loadAtStart` is {@link loadNow} when the run began. */
export function describeMachine(layout: CpuLayout, loadAtStart: number): MachineInfo {
  return {
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGib: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    serverCpus: layout.server,
    loadCpus: layout.load,
    pinned: layout.pinned,
    versions: Object.fromEntries(
      ["node", "bun", "deno", "workerd", "wrk"].map((name) => [
        name,
        version(name === "wrk" ? name : `${ROOT}node_modules/.bin/${name}`),
      ]),
    ),
    source: source(),
    loadAverage: { start: loadAtStart, end: loadNow() },
  };
}
