import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readSync, statSync } from "node:fs";

/** A program to start: the command is exec'd directly so that its pid is the server's own. */
export interface Command {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A started process that the harness stops before it exits, on error too. */
export interface Running {
  readonly pid: number;
  readonly exited: Promise<number | null>;
  /** The last lines the process printed, to explain a failure. */
  output(): string;
  stop(): Promise<void>;
}

const OUTPUT_LIMIT = 16_384;
const running = new Map<ChildProcess, Promise<unknown>>();

/**
 * Starts a command, pinned to `cpus` (a taskset list such as "1") when given. taskset execs the
 * command, so the pid stays the command's own and /proc readings are about it. With `logFile`,
 * the output goes straight to that file: a server that logs every request then costs the harness
 * (which shares the load generator's core) nothing.
 */
export function start(command: Command, cpus?: string, logFile?: string): Running {
  const [file, args] =
    cpus === undefined ? [command.command, command.args] : ["taskset", ["-c", cpus, command.command, ...command.args]];
  const fd = logFile === undefined ? undefined : openSync(logFile, "w");
  const child = spawn(file, args, {
    cwd: command.cwd,
    env: { ...process.env, ...command.env },
    stdio: fd === undefined ? ["ignore", "pipe", "pipe"] : ["ignore", fd, fd],
  });
  if (fd !== undefined) closeSync(fd);
  if (child.pid === undefined) throw new Error(`Could not start ${command.command}: check that it is installed`);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  running.set(child, exited);
  return {
    pid: child.pid,
    exited,
    output: () => (logFile === undefined ? output : tail(logFile)),
    stop: () => stop(child, exited),
  };
}

function tail(file: string): string {
  const size = statSync(file).size;
  const length = Math.min(size, OUTPUT_LIMIT);
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  return buffer.toString();
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
  await exited;
  clearTimeout(timer);
}

/** Stops every process still running; called on the way out, whatever the way. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map(([child, exited]) => stop(child, exited)));
}

/** Makes sure no server outlives the harness: on Ctrl-C, on SIGTERM and on an unexpected exit. */
export function stopAllOnExit(): void {
  process.once("exit", () => {
    for (const child of running.keys()) child.kill("SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the servers`);
      stopAll().finally(() => process.exit(130));
    });
  }
}
