import { accessSync, constants, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { BIN, ROOT } from "./paths.ts";
import type { Command } from "./processes.ts";
import { writeWorkerdConfig } from "./workerd.ts";

/** The runtimes the service runs on. */
export const RUNTIMES = ["node", "bun", "deno", "workerd"] as const;
export type Runtime = (typeof RUNTIMES)[number];

/**
 * The service itself, the service with LOG_LEVEL=off, the service keeping its list in a Durable
 * Object (on workerd), the service with its list in PostgreSQL (Node, Bun and Deno), the runtime's
 * ceiling, the plain Hono peer (on every runtime) or the Fastify peer (on Node).
 */
export type ServerKind = "app" | "app-logoff" | "app-durable" | "app-postgres" | "ceiling" | "hono" | "fastify";

/** Where the plain Hono peer's Worker is bundled, inside the workspace: wrangler's outdir is its own. */
export const HONO_WORKER_DIR = "hono";
/** Where the service's Worker for wrangler.toml's `durable` environment is bundled, inside the workspace. */
export const DURABLE_WORKER_DIR = "durable";

/** Files the servers are built from: the bundled Workers and the ceiling Worker, in one folder. */
export interface Workspace {
  readonly dir: string;
  readonly workerModules: readonly string[];
  readonly ceilingModule: string;
  /** The plain Hono peer's Worker modules, in {@link HONO_WORKER_DIR}; empty when hono-workerd is not measured. */
  readonly honoWorkerModules: readonly string[];
  /** The service's Worker bundled with `--env durable`, in {@link DURABLE_WORKER_DIR}; empty when workerd-durable is not measured. */
  readonly durableWorkerModules: readonly string[];
  /** Where the Durable Objects' SQLite files go, one folder per server: see {@link objectsParentDir}. */
  readonly objectsDir: string;
}

/** The list a ceiling answers with: its bytes in a file of the workspace, and the app's headers. */
export interface CeilingBody {
  readonly file: string;
  readonly headers: Readonly<Record<string, string>>;
}

const listen = (port: number) => ({ PORT: String(port), HOST: "127.0.0.1" });

/** A TypeScript entry run as it is by Node, Bun or Deno (which gets network, environment and `denoReads`). */
export function scriptCommand(
  runtime: Exclude<Runtime, "workerd">,
  script: string,
  env: Record<string, string>,
  denoReads = false,
): Command {
  if (runtime === "deno") {
    const allow = ["--allow-net", "--allow-env", ...(denoReads ? ["--allow-read"] : [])];
    return { command: BIN.deno, args: ["run", ...allow, script], env, cwd: ROOT };
  }
  return { command: BIN[runtime], args: [script], env, cwd: ROOT };
}

/** The service's real entry point for `runtime`, configured by `env` (MAX_TASKS and the like). */
export function appCommand(runtime: Runtime, port: number, ws: Workspace, env: Record<string, string>): Command {
  if (runtime !== "workerd") return scriptCommand(runtime, `src/runtimes/${runtime}.ts`, { ...env, ...listen(port) });
  const bindings = Object.entries(env).map(([name, text]) => ({ name, text }));
  const config = writeWorkerdConfig(ws.dir, `app-${port}`, { port, modules: ws.workerModules, bindings });
  return { command: BIN.workerd, args: ["serve", config], cwd: ws.dir };
}

/**
 * Where to make the folder of the Durable Objects' SQLite files: /dev/shm, a RAM-backed tmpfs, when
 * there is one, else the system's temporary folder. A Durable Object answers a write (each POST's
 * append) only once its storage has committed it; on a disk, the POSTs then wait on the disk's
 * syncs (about 160 POSTs/s with the server core four-fifths idle on the committed machine's
 * virtual disk, against 1,500 on tmpfs), which measures the disk, not the service.
 */
export function objectsParentDir(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

/**
 * The folder where the Durable Object of the server on `port` keeps its SQLite files: fresh for
 * each server, so every trial starts from a new list; the trial removes it.
 */
export function durableStorageDir(ws: Workspace, port: number): string {
  return join(ws.objectsDir, `storage-${port}`);
}

/**
 * The service's Worker as wrangler.toml's `durable` environment deploys it: bundled with
 * `--env durable`, served by workerd with the TaskListObject class's namespace, SQL enabled and
 * stored on disk, bound as TASK_LIST, and TASK_STORE=durable, plus `env` (the list limits and the
 * like) as text bindings, as the service on workerd gets them.
 */
export function durableAppCommand(port: number, ws: Workspace, env: Record<string, string>): Command {
  const dir = join(ws.dir, DURABLE_WORKER_DIR);
  const storagePath = durableStorageDir(ws, port);
  mkdirSync(storagePath, { recursive: true });
  const texts = Object.entries({ ...env, TASK_STORE: "durable" }).map(([name, text]) => ({ name, text }));
  const config = writeWorkerdConfig(dir, `app-durable-${port}`, {
    port,
    modules: ws.durableWorkerModules,
    bindings: [...texts, { name: "TASK_LIST", durableObjectNamespace: "TaskListObject" }],
    durableObjects: { className: "TaskListObject", uniqueKey: "task-list-bench", storagePath },
  });
  return { command: BIN.workerd, args: ["serve", config], cwd: dir };
}

/** The runtime's ceiling: a server that answers every request with precomputed bytes. */
export function ceilingCommand(runtime: Runtime, port: number, ws: Workspace, body: CeilingBody): Command {
  const env = { ...listen(port), BENCH_BODY_FILE: body.file, BENCH_HEADERS: JSON.stringify(body.headers) };
  if (runtime !== "workerd") return scriptCommand(runtime, `bench/ceilings/${runtime}.ts`, env, true);
  const config = writeWorkerdConfig(ws.dir, `ceiling-${port}`, {
    port,
    modules: [ws.ceilingModule],
    bindings: [
      { name: "BODY", file: basename(body.file) },
      { name: "HEADERS", text: JSON.stringify(body.headers) },
    ],
  });
  return { command: BIN.workerd, args: ["serve", config], cwd: ws.dir };
}

/**
 * Deno's POST ceiling: Deno.serve reading each request's body, then answering with fixed bytes (the
 * list's first task) and the headers the service gives a created task. Deno charges each response
 * header so much that its POSTs are measured against this rather than against its GET ceiling.
 */
export function denoPostCeilingCommand(port: number, body: CeilingBody): Command {
  const env = { ...listen(port), BENCH_BODY_FILE: body.file, BENCH_HEADERS: JSON.stringify(body.headers) };
  return scriptCommand("deno", "bench/ceilings/deno-post.ts", env, true);
}

/** The plain Hono peer on `runtime`: bench/peers/hono/, through the thinnest entry of each runtime. */
export function honoCommand(runtime: Runtime, port: number, ws: Workspace): Command {
  if (runtime !== "workerd") return scriptCommand(runtime, `bench/peers/hono/${runtime}.ts`, listen(port));
  const dir = join(ws.dir, HONO_WORKER_DIR);
  const config = writeWorkerdConfig(dir, `hono-${port}`, { port, modules: ws.honoWorkerModules, bindings: [] });
  return { command: BIN.workerd, args: ["serve", config], cwd: dir };
}

/** The Fastify implementation of the same contract, on Node. */
export function fastifyCommand(port: number, env: Record<string, string>): Command {
  return scriptCommand("node", "bench/peers/fastify.ts", { ...env, ...listen(port) });
}
