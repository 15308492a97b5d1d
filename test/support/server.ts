// Real servers for the tests: the service started on Node, Bun, Deno or workerd, on 127.0.0.1 and
// a free port, stopped by the test that started it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Launch, RunningServer, Runtime, StartOptions } from "./launch.ts";
import { startProcessServer } from "./process-server.ts";

export { freePort, type RunningServer, type Runtime, type StartOptions } from "./launch.ts";

/** How each running server was started, and how to stop it keeping its state for a restart. */
const launches = new WeakMap<RunningServer, { spec: Launch; halt: () => Promise<void> }>();

/**
 * Starts the service on `runtime`, on 127.0.0.1 and a free port, and resolves once it answers
 * HTTP: Node, Bun and Deno through the command of their npm script, the Worker bundled as deployed
 * on `workerd serve` (or through `npm start`, wrangler dev: see {@link StartOptions.cli}).
 * Throws with the server's output if it does not start.
 */
export function startServer(
  runtime: Runtime,
  env: Readonly<Record<string, string>> = {},
  options: StartOptions = {},
): Promise<RunningServer> {
  const stateDir = runtime === "workerd" ? mkdtempSync(join(tmpdir(), "task-list-workerd-")) : undefined;
  return launch({ runtime, env, options, stateDir });
}

/**
 * Stops `server` and starts it again on the same runtime with the same settings and (for workerd)
 * the same local state directory, as a deployment restart would. The returned server may listen on
 * another port.
 */
export async function restartServer(server: RunningServer): Promise<RunningServer> {
  const running = launches.get(server);
  if (running === undefined) throw new Error("restartServer needs a running server returned by startServer");
  launches.delete(server);
  await running.halt();
  return launch(running.spec);
}

async function launch(spec: Launch): Promise<RunningServer> {
  const removeState = () => {
    if (spec.stateDir !== undefined) rmSync(spec.stateDir, { recursive: true, force: true });
  };
  let started: RunningServer;
  try {
    started = await startProcessServer(spec);
  } catch (error) {
    removeState();
    throw error;
  }
  const server: RunningServer = {
    ...started,
    stop: async () => {
      launches.delete(server);
      await started.stop();
      removeState();
    },
  };
  launches.set(server, { spec, halt: () => started.stop() });
  return server;
}
