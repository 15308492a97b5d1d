// The Worker on a real HTTP server through wrangler's own API: the same workerd, configuration and
// bindings as `wrangler dev`, started in this process instead of a CLI process of its own.
import { resolve } from "node:path";
import { HOST, type Launch, type RunningServer } from "./launch.ts";
import { residentKib, workerdProcesses } from "./process-memory.ts";

const CONFIG = resolve(import.meta.dirname, "../../wrangler.toml");
const MAX_OUTPUT_CHARS = 200_000;
/** What wrangler reads, from its own process's environment, as TASK_DB's local database. */
const HYPERDRIVE_VARIABLE = "CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_TASK_DB";
/** Starts one after another: each may set the process environment wrangler reads while it starts. */
let starting: Promise<unknown> = Promise.resolve();

/**
 * Starts the Worker with `spec`'s vars, wrangler.toml environment and local state, and resolves
 * once it answers HTTP. The Worker's console lines are its output, one per line as workerd logs
 * them. Throws with that output if it does not start.
 */
export function startApiWorker(spec: Launch): Promise<RunningServer> {
  const started = starting.then(() => start(spec));
  starting = started.catch(() => {});
  return started;
}

async function start(spec: Launch): Promise<RunningServer> {
  // Loaded on first use: most test files never start a Worker, and wrangler is large.
  const { unstable_startWorker } = await import("wrangler");
  let output = "";
  // A Worker that throws while it loads (a setting it refuses) never answers: the uncaught error
  // it logs ends the start at once, as wrangler dev's command line exits on it.
  let threwOnLoad: (error: Error) => void = () => {};
  const loadFailure = new Promise<never>((_, fail) => {
    threwOnLoad = fail;
  });
  loadFailure.catch(() => {});
  const bindings = Object.fromEntries(
    Object.entries(spec.env).map(([name, value]) => [name, { type: "plain_text" as const, value }]),
  );
  const { hyperdrive } = spec.options;
  if (hyperdrive === undefined) delete process.env[HYPERDRIVE_VARIABLE];
  else process.env[HYPERDRIVE_VARIABLE] = hyperdrive;
  const worker = await unstable_startWorker({
    config: CONFIG,
    ...(spec.options.environment === undefined ? {} : { env: spec.options.environment }),
    bindings,
    dev: {
      server: { hostname: HOST, port: 0 },
      inspector: false,
      persist: spec.stateDir ?? false,
      structuredLogsHandler: ({ message }: { message: string }) => {
        output = `${output}${message}\n`.slice(-MAX_OUTPUT_CHARS);
        if (message.includes("Uncaught")) threwOnLoad(new Error("the Worker threw while it loaded"));
      },
    },
  });
  try {
    await Promise.race([worker.ready, loadFailure]);
    const url = await worker.url;
    const baseUrl = url.origin;
    // The first request compiles the Worker; the start is not over until it answers.
    const res = await Promise.race([fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(30_000) }), loadFailure]);
    await res.body?.cancel();
    return {
      baseUrl,
      output: () => output,
      stop: () => worker.dispose(),
      memoryKib: () => workerdProcesses({ parent: process.pid }).reduce((sum, pid) => sum + residentKib(pid), 0),
    };
  } catch (error) {
    await worker.dispose().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`The Worker did not start: ${reason}\n--- Worker output ---\n${output}`);
  }
}
