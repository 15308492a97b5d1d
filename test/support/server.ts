import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The runtimes the service ships an entry for. */
export type Runtime = "node" | "bun" | "deno" | "wrangler";

/** A server process started by {@link startServer}. */
export interface RunningServer {
  /** Where the service answers, such as http://127.0.0.1:40123 (no trailing slash, no base path). */
  readonly baseUrl: string;
  readonly pid: number;
  /** Stops the process and every child it started (workerd for wrangler). */
  stop(): Promise<void>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
}

/** What {@link startServer} accepts beside the environment. */
export interface StartOptions {
  /** Extra command-line arguments, such as ["--env", "durable"] for wrangler. */
  readonly args?: readonly string[];
  /**
   * Environment of the process itself, for what wrangler reads from its own environment rather
   * than the Worker's vars (CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_TASK_DB).
   */
  readonly processEnv?: Readonly<Record<string, string>>;
}

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "node_modules", ".bin");
const HOST = "127.0.0.1";
const START_TIMEOUT_MS = Number(process.env.SERVER_START_TIMEOUT_MS ?? 90_000);
const STOP_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_CHARS = 200_000;
/** Contract settings that a developer's shell may hold; a test server only gets the ones the test passes. */
const CONTRACT_VARS = [
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
  "CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_TASK_DB",
];
const SCRIPTS: Record<Runtime, string> = {
  node: "start:node",
  bun: "start:bun",
  deno: "start:deno",
  wrangler: "start",
};

interface Launch {
  readonly runtime: Runtime;
  readonly env: Readonly<Record<string, string>>;
  readonly args: readonly string[];
  readonly processEnv: Readonly<Record<string, string>>;
  /** wrangler's local state; kept across {@link restartServer} so a Durable Object's list survives. */
  readonly stateDir: string | undefined;
}

const launches = new WeakMap<RunningServer, Launch>();
/** Process groups still running, with a promise that settles when the group's leader exits. */
const liveGroups = new Map<number, Promise<void>>();

// A crashed or interrupted test run must not leave servers behind.
process.once("exit", () => {
  for (const pid of liveGroups.keys()) killGroup(pid, "SIGKILL");
});

/**
 * Starts the service on `runtime` through the command of its npm script, on 127.0.0.1 and a free
 * port, and resolves once it answers HTTP. Throws with the process output if it does not start.
 */
export function startServer(
  runtime: Runtime,
  env: Readonly<Record<string, string>> = {},
  options: StartOptions = {},
): Promise<RunningServer> {
  const args = options.args ?? [];
  const stateDir =
    runtime === "wrangler" && !args.includes("--persist-to")
      ? mkdtempSync(join(tmpdir(), "task-list-wrangler-"))
      : undefined;
  return launch({ runtime, env, args, processEnv: options.processEnv ?? {}, stateDir });
}

/**
 * Stops `server` and starts it again on the same runtime with the same environment, arguments and
 * (for wrangler) the same local state directory, as a deployment restart would. The returned
 * server may listen on another port.
 */
export async function restartServer(server: RunningServer): Promise<RunningServer> {
  const previous = launches.get(server);
  if (previous === undefined) throw new Error("restartServer needs a server returned by startServer");
  launches.delete(server);
  await stopProcess(server.pid, previous.runtime);
  return launch(previous);
}

/** Times wrangler dev is started on a new port when another process took the one it was given. */
const PORT_ATTEMPTS = 3;

async function launch(spec: Launch, attempt = 1): Promise<RunningServer> {
  const port = spec.runtime === "wrangler" ? await freePort() : 0;
  const [command, ...args] = commandLine(spec, port);
  if (command === undefined) throw new Error(`The npm script ${SCRIPTS[spec.runtime]} is empty`);
  const child = spawn(resolveBinary(command), args, {
    cwd: ROOT,
    env: childEnv(spec, port),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const append = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-MAX_OUTPUT_CHARS);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);

  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const pid = await spawned(child, () => output);
  liveGroups.set(pid, exited);
  try {
    const baseUrl = await waitUntilAnswering(() => output, exited);
    const server: RunningServer = {
      baseUrl,
      pid,
      output: () => output,
      stop: async () => {
        launches.delete(server);
        await stopProcess(pid, spec.runtime);
        if (spec.stateDir !== undefined) rmSync(spec.stateDir, { recursive: true, force: true });
      },
    };
    launches.set(server, spec);
    return server;
  } catch (error) {
    await stopProcess(pid, spec.runtime);
    // wrangler dev cannot pick its own port: the free one it was given may be taken before it binds.
    if (attempt < PORT_ATTEMPTS && output.includes("Address already in use")) return launch(spec, attempt + 1);
    if (spec.stateDir !== undefined) rmSync(spec.stateDir, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message : String(error);
    const status = child.exitCode === null ? "" : ` (exit code ${child.exitCode})`;
    throw new Error(`The ${spec.runtime} server did not start: ${reason}${status}\n--- server output ---\n${output}`);
  }
}

/** The npm script's command for this runtime, plus what makes it listen where the test wants. */
function commandLine(spec: Launch, port: number): string[] {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const script = scripts[SCRIPTS[spec.runtime]] ?? "";
  const words = script.split(/\s+/).filter((word) => word !== "");
  if (spec.runtime !== "wrangler") return [...words, ...spec.args];
  const vars = Object.entries(spec.env).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const state = spec.stateDir === undefined ? [] : ["--persist-to", spec.stateDir];
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
    ...spec.args,
  ];
}

function resolveBinary(command: string): string {
  return command.includes("/") ? command : join(BIN, command);
}

function childEnv(spec: Launch, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONTRACT_VARS) delete env[name];
  return {
    ...env,
    // The project's Node 24 (and the tools whose shebang asks for `node`) come before the system's.
    PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`,
    WRANGLER_SEND_METRICS: "false",
    NO_COLOR: "1",
    ...spec.processEnv,
    ...(spec.runtime === "wrangler" ? {} : { PORT: String(port), HOST, ...spec.env }),
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

async function waitUntilAnswering(output: () => string, exited: Promise<void>): Promise<string> {
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError = "no address logged yet";
  while (Date.now() < deadline) {
    if (hasExited) throw new Error("the process exited before it answered");
    // Only the address the server says it bound: another process may hold the port it was given.
    const baseUrl = loggedBaseUrl(output());
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

function causeOf(error: Error): string {
  return error.cause instanceof Error ? `: ${error.cause.message}` : "";
}

/**
 * SIGTERM to the whole process group, SIGKILL if it is still there after a bound. wrangler dev
 * gets SIGKILL at once: its own shutdown takes seconds and runs none of the service's code, and
 * what a Durable Object committed survives a kill as it survives a crash.
 */
async function stopProcess(pid: number, runtime: Runtime): Promise<void> {
  const exited = liveGroups.get(pid);
  if (exited === undefined) return;
  if (runtime !== "wrangler") killGroup(pid, "SIGTERM");
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (runtime !== "wrangler" && groupAlive(pid) && Date.now() < deadline) await sleep(50);
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

/** A port on 127.0.0.1 that was free a moment ago, for servers that cannot pick their own (wrangler dev, PostgreSQL), or for a database nothing listens on. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() => {
        if (address !== null && typeof address === "object") done(address.port);
        else fail(new Error("Could not find a free port on 127.0.0.1"));
      });
    });
  });
}
