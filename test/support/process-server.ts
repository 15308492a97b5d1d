// A server as a process of its own: the command of the runtime's npm script, as a person runs it.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort, HOST, type Launch, type RunningServer, type Runtime } from "./launch.ts";
import { residentKib, workerdProcesses } from "./process-memory.ts";
import { serviceConfig } from "./workerd-server.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "node_modules", ".bin");
const START_TIMEOUT_MS = Number(process.env.SERVER_START_TIMEOUT_MS ?? 90_000);
const STOP_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 200_000;
/** Contract settings that a developer's shell may hold; a test server only gets the ones the test passes. */
export const CONTRACT_VARS = [
  "PORT",
  "HOST",
  "BASE_PATH",
  "MAX_BODY_BYTES",
  "MAX_TASKS",
  "MAX_LIST_BYTES",
  "CORS_ORIGINS",
  "LOG_LEVEL",
  "TASK_STORE",
  "SQLITE_PATH",
  "READ_TOKENS",
  "WRITE_TOKENS",
  "DATABASE_URL",
  "DATABASE_SCHEMA",
  "DATABASE_POOL_SIZE",
  "MAX_SUBSCRIBERS",
  "MAX_IDEMPOTENCY_KEYS",
  "CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_TASK_DB",
];
const SCRIPTS: Record<Runtime, string> = {
  node: "start:node",
  bun: "start:bun",
  deno: "start:deno",
  workerd: "start",
};
/** Times workerd is started on a new port when another process took the one it was given. */
const PORT_ATTEMPTS = 3;

/** Process groups still running, with a promise that settles when the group's leader exits. */
const liveGroups = new Map<number, Promise<void>>();

// A crashed or interrupted test run must not leave servers behind. vitest ends a worker whose test
// timed out with a signal, which runs no exit handler: the servers go, then the signal does its work.
const killLiveGroups = () => {
  for (const pid of liveGroups.keys()) killGroup(pid, "SIGKILL");
};
process.once("exit", killLiveGroups);
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  process.once(signal, () => {
    killLiveGroups();
    process.kill(process.pid, signal);
  });
}

/**
 * Starts the service through the command of its runtime's npm script (or what the options run in
 * its place: another entry, a workerd config; on workerd, `workerd serve` unless the CLI is asked
 * for) and resolves once it answers HTTP. Throws with the process output if it does not start.
 */
export async function startProcessServer(spec: Launch, attempt = 1): Promise<RunningServer> {
  const { cpus, outputFile } = spec.options;
  const port = spec.options.port ?? (spec.runtime === "workerd" ? await freePort() : 0);
  const [command, ...args] = await commandLine(spec, port);
  if (command === undefined) throw new Error(`The npm script ${SCRIPTS[spec.runtime]} is empty`);
  const file = command.includes("/") ? command : join(BIN, command);
  // taskset execs the server in its own place, so the pid stays the server's.
  const [program, argv] = cpus === undefined ? [file, args] : ["taskset", ["-c", cpus, file, ...args]];
  const fd = outputFile === undefined ? undefined : openSync(outputFile, "w");
  const child = spawn(program, argv, {
    cwd: ROOT,
    env: childEnv(spec, port),
    detached: true,
    stdio: ["ignore", fd ?? "pipe", fd ?? "pipe"],
  });
  if (fd !== undefined) closeSync(fd);
  const output = new OutputTail();
  const append = (chunk: Buffer): void => output.add(chunk);
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const outputSoFar = outputFile === undefined ? () => output.text() : () => fileTail(outputFile);

  // "close" comes after "exit" once stdout and stderr are drained: what a failing start said is all there.
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  const pid = await spawned(child, outputSoFar);
  liveGroups.set(pid, exited);
  try {
    // `workerd serve` says nothing once it listens; wrangler dev and the service say where.
    const logsAddress = spec.options.port === undefined && (spec.runtime !== "workerd" || spec.options.cli === true);
    const givenUrl = logsAddress ? undefined : `http://${HOST}:${port}`;
    const baseUrl = await waitUntilResponding(outputSoFar, exited, givenUrl);
    return {
      baseUrl,
      pid,
      output: outputSoFar,
      stop: () => stopProcess(pid, spec.runtime !== "workerd"),
      kill: () => stopProcess(pid, false),
      ...(spec.runtime === "workerd"
        ? {}
        : {
            terminate: async () => {
              process.kill(pid, "SIGTERM");
              await exited;
              liveGroups.delete(pid);
              return child.exitCode;
            },
          }),
      // wrangler dev holds the list in the workerd it starts; every other server is its own process.
      memoryKib: () =>
        spec.runtime === "workerd" && spec.options.cli === true
          ? workerdProcesses(pid).reduce((sum, member) => sum + residentKib(member), 0)
          : residentKib(pid),
    };
  } catch (error) {
    await stopProcess(pid, spec.runtime !== "workerd");
    // workerd cannot pick its own port: the free one it was given may be taken before it binds.
    if (attempt < PORT_ATTEMPTS && outputSoFar().includes("Address already in use")) {
      return startProcessServer(spec, attempt + 1);
    }
    const reason = error instanceof Error ? error.message : String(error);
    const status = child.exitCode === null ? "" : ` (exit code ${child.exitCode})`;
    throw new Error(
      `The ${spec.runtime} server did not start: ${reason}${status}\n--- server output ---\n${outputSoFar()}`,
    );
  }
}

/** The npm script's command for this runtime, plus what makes it listen where the test wants. */
async function commandLine(spec: Launch, port: number): Promise<string[]> {
  const { entry, workerdConfig } = spec.options;
  if (workerdConfig !== undefined) return ["workerd", "serve", workerdConfig];
  if (spec.runtime === "workerd" && spec.options.cli !== true) {
    return ["workerd", "serve", await serviceConfig(spec, port)];
  }
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const script = scripts[SCRIPTS[spec.runtime]] ?? "";
  const words = script.split(/\s+/).filter((word) => word !== "");
  if (spec.runtime !== "workerd") return entry === undefined ? words : [...words.slice(0, -1), entry];
  const vars = Object.entries(spec.env).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const state = spec.stateDir === undefined ? [] : ["--persist-to", spec.stateDir];
  const environment = spec.options.environment === undefined ? [] : ["--env", spec.options.environment];
  return [
    ...words,
    "--ip",
    HOST,
    "--port",
    String(port),
    "--inspector-port",
    "0",
    "--show-interactive-dev-session=false",
    ...state,
    ...vars,
    ...environment,
  ];
}

function childEnv(spec: Launch, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONTRACT_VARS) delete env[name];
  const { hyperdrive } = spec.options;
  return {
    ...env,
    // The project's Node 24 (and the tools whose shebang asks for `node`) come before the system's.
    PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`,
    WRANGLER_SEND_METRICS: "false",
    NO_COLOR: "1",
    ...(hyperdrive === undefined ? {} : { CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_TASK_DB: hyperdrive }),
    ...(spec.runtime === "workerd" ? {} : { PORT: String(port), HOST, ...spec.env }),
  };
}

function spawned(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((done, fail) => {
    child.once("spawn", () => {
      if (child.pid === undefined) fail(new Error(`The server process has no pid\n${output()}`));
      else done(child.pid);
    });
    child.once("error", (error) => fail(new Error(`The server process could not be spawned: ${error.message}`)));
  });
}

/** Waits until the server answers at the address it logs, or, when it logs none, at `givenUrl`. */
async function waitUntilResponding(
  output: () => string,
  exited: Promise<void>,
  givenUrl: string | undefined,
): Promise<string> {
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError = "no address logged yet";
  while (Date.now() < deadline) {
    if (hasExited) throw new Error("the process exited before it answered");
    // Only the address the server says it bound, as another process may hold the port it was given;
    // or, for a server that logs none, the port the caller chose for it.
    const baseUrl = loggedBaseUrl(output()) ?? givenUrl;
    if (baseUrl !== undefined) {
      try {
        const res = await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(5_000) });
        await res.body?.cancel();
        return baseUrl;
      } catch (error) {
        lastError = error instanceof Error ? `${error.message}${causeOf(error)}` : String(error);
      }
    }
    await sleep(50);
  }
  throw new Error(`it did not answer within ${START_TIMEOUT_MS} ms (last attempt: ${lastError})`);
}

/** The address in the service's "listening on" line, or in wrangler dev's "Ready on" line. */
function loggedBaseUrl(output: string): string | undefined {
  return /(?:listening|Ready) on (http:\/\/[^\s/]+)/.exec(output)?.[1];
}

/**
 * The last {@link MAX_OUTPUT_BYTES} bytes a server wrote, kept as the chunks it came in and decoded
 * when read: a server logs a line per request, and a string made again with each chunk cost the
 * tests seconds of CPU for output that is read only when a test looks for a line or fails.
 */
class OutputTail {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;

  add(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.byteLength;
    let first = this.#chunks[0];
    while (first !== undefined && this.#bytes - first.byteLength >= MAX_OUTPUT_BYTES) {
      this.#chunks.shift();
      this.#bytes -= first.byteLength;
      first = this.#chunks[0];
    }
  }

  text(): string {
    const bytes = Buffer.concat(this.#chunks);
    return bytes.subarray(Math.max(0, bytes.byteLength - MAX_OUTPUT_BYTES)).toString("utf8");
  }
}

/** The last part of a server's output file, as much as is kept in memory otherwise. */
function fileTail(file: string): string {
  const size = statSync(file).size;
  const length = Math.min(size, MAX_OUTPUT_BYTES);
  const bytes = Buffer.alloc(length);
  const fd = openSync(file, "r");
  try {
    readSync(fd, bytes, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  return bytes.toString("utf8");
}

function causeOf(error: Error): string {
  return error.cause instanceof Error ? `: ${error.cause.message}` : "";
}

/**
 * SIGTERM to the whole process group when `graceful`, SIGKILL if it is still there after a bound.
 * workerd gets SIGKILL at once: wrangler dev's shutdown takes seconds, neither runs any of the
 * service's code, and what a Durable Object committed survives a kill as it survives a crash.
 */
async function stopProcess(pid: number, graceful: boolean): Promise<void> {
  const exited = liveGroups.get(pid);
  if (exited === undefined) return;
  if (graceful) killGroup(pid, "SIGTERM");
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (graceful && groupAlive(pid) && Date.now() < deadline) await sleep(50);
  // The leader may have exited before its children (workerd), so the group always gets a SIGKILL.
  killGroup(pid, "SIGKILL");
  const bound = new AbortController();
  await Promise.race([exited, sleep(STOP_TIMEOUT_MS, undefined, { signal: bound.signal }).catch(() => {})]);
  bound.abort();
  liveGroups.delete(pid);
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** How a server process that was not meant to start ended: its exit status and what it wrote to each stream. */
export interface FailedStart {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a Node, Bun or Deno server through its npm script's command with `env`, as a person runs it,
 * and resolves once it exits; one still running after the start time-out is killed and fails.
 */
export async function runUntilExit(
  runtime: Exclude<Runtime, "workerd">,
  env: Readonly<Record<string, string>>,
): Promise<FailedStart> {
  const spec: Launch = { runtime, env, options: {}, stateDir: undefined };
  const [command, ...args] = await commandLine(spec, 0);
  if (command === undefined) throw new Error(`The npm script ${SCRIPTS[runtime]} is empty`);
  const child = spawn(join(BIN, command), args, {
    cwd: ROOT,
    env: childEnv(spec, 0),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_MS);
  const status = await new Promise<number | null>((done, fail) => {
    child.once("error", fail);
    child.once("close", (code) => done(code));
  });
  clearTimeout(timer);
  return { status, stdout, stderr };
}
