import { basename, join } from "node:path";
import { BIN, ROOT } from "./paths.ts";
import type { Command } from "./processes.ts";
import { writeWorkerdConfig } from "./workerd.ts";

/** The runtimes the service runs on. */
export const RUNTIMES = ["node", "bun", "deno", "workerd"] as const;
export type Runtime = (typeof RUNTIMES)[number];

/**
 * The service itself, the service with LOG_LEVEL=off, the service with its list in PostgreSQL
 * (Node, Bun and Deno), the runtime's ceiling, the plain Hono peer (on every runtime) or the
 * Fastify peer (on Node).
 */
export type ServerKind = "app" | "app-logoff" | "app-postgres" | "ceiling" | "hono" | "fastify";

/** Where the plain Hono peer's Worker is bundled, inside the workspace: wrangler's outdir is its own. */
export const HONO_WORKER_DIR = "hono";

/** Files the servers are built from: the bundled Workers and the ceiling Worker, in one folder. */
export interface Workspace {
  readonly dir: string;
  readonly workerModules: readonly string[];
  readonly ceilingModule: string;
  /** The plain Hono peer's Worker modules, in {@link HONO_WORKER_DIR}; empty when hono-workerd is not measured. */
  readonly honoWorkerModules: readonly string[];
}

/** The list a ceiling answers with: its bytes in a file of the workspace, and the app's headers. */
export interface CeilingBody {
  readonly file: string;
  readonly headers: Readonly<Record<string, string>>;
}

const listen = (port: number) => ({ PORT: String(port), HOST: "127.0.0.1" });

/** The service's real entry point for `runtime`, configured by `env` (MAX_TASKS and the like). */
export function appCommand(runtime: Runtime, port: number, ws: Workspace, env: Record<string, string>): Command {
  const all = { ...env, ...listen(port) };
  switch (runtime) {
    case "node":
      return { command: BIN.node, args: ["src/runtimes/node.ts"], env: all, cwd: ROOT };
    case "bun":
      return { command: BIN.bun, args: ["src/runtimes/bun.ts"], env: all, cwd: ROOT };
    case "deno":
      return {
        command: BIN.deno,
        args: ["run", "--allow-net", "--allow-env", "src/runtimes/deno.ts"],
        env: all,
        cwd: ROOT,
      };
    case "workerd": {
      const bindings = Object.entries(env).map(([name, text]) => ({ name, text }));
      const config = writeWorkerdConfig(ws.dir, `app-${port}`, { port, modules: ws.workerModules, bindings });
      return { command: BIN.workerd, args: ["serve", config], cwd: ws.dir };
    }
  }
}

/** The runtime's ceiling: a server that answers every request with precomputed bytes. */
export function ceilingCommand(runtime: Runtime, port: number, ws: Workspace, body: CeilingBody): Command {
  const env = { ...listen(port), BENCH_BODY_FILE: body.file, BENCH_HEADERS: JSON.stringify(body.headers) };
  switch (runtime) {
    case "node":
      return { command: BIN.node, args: ["bench/ceilings/node.ts"], env, cwd: ROOT };
    case "bun":
      return { command: BIN.bun, args: ["bench/ceilings/bun.ts"], env, cwd: ROOT };
    case "deno":
      return {
        command: BIN.deno,
        args: ["run", "--allow-net", "--allow-env", "--allow-read", "bench/ceilings/deno.ts"],
        env,
        cwd: ROOT,
      };
    case "workerd": {
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
  }
}

/** The plain Hono peer on `runtime`: bench/peers/hono/, through the thinnest entry of each runtime. */
export function honoCommand(runtime: Runtime, port: number, ws: Workspace): Command {
  const env = listen(port);
  switch (runtime) {
    case "node":
      return { command: BIN.node, args: ["bench/peers/hono/node.ts"], env, cwd: ROOT };
    case "bun":
      return { command: BIN.bun, args: ["bench/peers/hono/bun.ts"], env, cwd: ROOT };
    case "deno":
      return {
        command: BIN.deno,
        args: ["run", "--allow-net", "--allow-env", "bench/peers/hono/deno.ts"],
        env,
        cwd: ROOT,
      };
    case "workerd": {
      const dir = join(ws.dir, HONO_WORKER_DIR);
      const config = writeWorkerdConfig(dir, `hono-${port}`, { port, modules: ws.honoWorkerModules, bindings: [] });
      return { command: BIN.workerd, args: ["serve", config], cwd: dir };
    }
  }
}

/** The Fastify implementation of the same contract, on Node. */
export function fastifyCommand(port: number, env: Record<string, string>): Command {
  return { command: BIN.node, args: ["bench/peers/fastify.ts"], env: { ...env, ...listen(port) }, cwd: ROOT };
}
