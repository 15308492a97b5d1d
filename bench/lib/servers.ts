// How the bench starts a server: through the tests' launcher, pinned to the server's CPU, its output
// in a file. On workerd, a Worker bundled as `wrangler deploy` would upload it, served by
// `workerd serve` from a config written here: no wrangler dev proxy in front.
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { freePort, startServer } from "../../test/support/server.ts";
import {
  bundleWorker as bundleWorkerInto,
  type WorkerBundle,
  writeWorkerdConfig,
} from "../../test/support/workerd-config.ts";
import type { Runtime } from "./subjects.ts";

/**
 * What a server runs: the service, the service with its list in a Durable Object (wrangler.toml's
 * `durable` environment, on workerd), or a bench file: a folder holds one entry per runtime
 * (`node.ts`, `bun.ts`, `deno.ts`, and `worker.ts` for workerd).
 */
export type Program =
  | "service"
  | "service-durable"
  | "bench/peers/hono"
  | "bench/peers/hono-live"
  | "bench/peers/fastify.ts"
  | "bench/ceilings"
  | "bench/ceilings/deno-post.ts";

/** Where a run's servers keep their files, and which CPUs they get. */
export interface ServerSettings {
  /** Logs, configs, bundled Workers (a folder per program) and the lists ceilings serve. */
  readonly dir: string;
  /** Where Durable Objects keep their SQLite files: see {@link objectsParentDir}. */
  readonly objectsDir: string;
  /** The server's CPUs as a taskset list, or undefined when nothing is pinned. */
  readonly cpus: string | undefined;
}

/** A server the bench started. */
export interface BenchServer {
  /** The list's URL: http://127.0.0.1:PORT/tasks. */
  readonly url: string;
  /** The server's own process, whose CPU time the bench reads. */
  readonly pid: number;
  /** Resident memory of the server's process, in KiB. */
  memoryKib(): number;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

/**
 * Where to make the folder of the Durable Objects' SQLite files: /dev/shm, a RAM-backed tmpfs, when
 * there is one. A Durable Object answers a write once its storage has committed it; on the committed
 * machine's disk each POST then waited on a sync (about 160 POSTs/s, against 1,500 on tmpfs), which
 * measures the disk, not the service.
 */
export function objectsParentDir(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

/** The Worker of each program bundled so far. */
const bundles = new Map<Program, WorkerBundle>();

/**
 * Bundles the Worker of `program` as `wrangler deploy` would upload it, into a folder of `dir`. The
 * bindings an environment declares are not in the bundle: the workerd config gives them.
 */
export function bundleWorker(dir: string, program: Program): void {
  const entry = program.startsWith("bench/") ? `${program}/worker.ts` : undefined;
  bundles.set(program, bundleWorkerInto(join(dir, basename(program)), entry));
}

/** Starts `program` on `runtime` with `env` (on workerd, as text bindings) and resolves once it answers. */
export async function startProgram(
  program: Program,
  runtime: Runtime,
  env: Readonly<Record<string, string>>,
  settings: ServerSettings,
): Promise<BenchServer> {
  const port = await freePort();
  const outputFile = join(settings.dir, `server-${port}.log`);
  const options = { port, outputFile, ...(settings.cpus === undefined ? {} : { cpus: settings.cpus }) };
  const storage = program === "service-durable" ? mkdtempSync(join(settings.objectsDir, "storage-")) : undefined;
  const removeFiles = () => {
    rmSync(outputFile, { force: true });
    if (storage !== undefined) rmSync(storage, { recursive: true, force: true });
  };
  try {
    const server =
      runtime === "workerd"
        ? await startServer(
            "workerd",
            {},
            { ...options, workerdConfig: writeConfig(program, port, env, storage, settings) },
          )
        : await startServer(runtime, env, { ...options, ...entryOf(program, runtime) });
    const { pid } = server;
    return {
      url: `${server.baseUrl}/tasks`,
      pid,
      memoryKib: () => server.memoryKib(),
      stop: async () => {
        await server.stop();
        removeFiles();
      },
    };
  } catch (error) {
    removeFiles();
    throw error;
  }
}

/** The launcher's entry option for a bench program on Node, Bun or Deno; nothing for the service. */
function entryOf(program: Program, runtime: Runtime): { entry?: string } {
  if (!program.startsWith("bench/")) return {};
  return { entry: program.endsWith(".ts") ? program : `${program}/${runtime}.ts` };
}

/**
 * Writes the workerd config that serves `program`'s bundled Worker on 127.0.0.1:`port`, `env` as
 * text bindings, and returns its path. A ceiling's BENCH_BODY_FILE is embedded as its BENCH_BODY
 * instead. With `storage`, the service runs in wrangler.toml's `durable` environment, its
 * Durable Objects' SQLite files in that folder.
 */
function writeConfig(
  program: Program,
  port: number,
  env: Readonly<Record<string, string>>,
  storage: string | undefined,
  settings: ServerSettings,
): string {
  const bundle = bundles.get(program);
  if (bundle === undefined) throw new Error(`${program} was not bundled: call bundleWorker first`);
  const { BENCH_BODY_FILE, ...vars } = env;
  const config = join(settings.dir, `${basename(program)}-${port}.capnp`);
  writeWorkerdConfig(config, bundle, {
    port,
    vars,
    ...(BENCH_BODY_FILE === undefined ? {} : { data: { BENCH_BODY: BENCH_BODY_FILE } }),
    ...(storage === undefined ? {} : { environment: "durable", objectsDir: storage }),
  });
  return config;
}
