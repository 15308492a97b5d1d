import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { type RunningServer, type Runtime, type StartOptions, startServer } from "./server.ts";

/**
 * Starts a server on `runtime` before the enclosing describe's tests and stops it after them, even
 * when they fail. The returned function gives the server; if it did not start, it throws the
 * start error with the server's output, so every test that needs it fails with that reason.
 */
export function useServer(
  runtime: Runtime,
  env: Readonly<Record<string, string>>,
  options: StartOptions = {},
): () => RunningServer {
  let server: RunningServer | undefined;
  let startFailure: unknown;
  beforeAll(async () => {
    try {
      server = await startServer(runtime, env, options);
    } catch (error) {
      startFailure = error;
    }
  });
  afterEach(({ task }) => {
    // What the server said is what explains a failure; it is shown with the failing test only.
    if (task.result?.state === "fail" && server !== undefined) {
      console.error(`--- the ${runtime} server's output, last part ---\n${server.output().slice(-8_000)}`);
    }
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server !== undefined) return server;
    throw startFailure ?? new Error(`The ${runtime} server has not started yet`);
  };
}

/**
 * Starts a server that must refuse to start, and returns the failure's message with the server's
 * output. wrangler dev runs as its command line, whose exit is what a person sees.
 */
export async function startFailure(
  runtime: Runtime,
  env: Readonly<Record<string, string>>,
  options: StartOptions = {},
): Promise<string> {
  let server: RunningServer;
  try {
    server = await startServer(runtime, env, { ...options, cli: true });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  await server.stop();
  throw new Error(`The ${runtime} server started with ${JSON.stringify(env)}, but it must refuse to`);
}

/** Checks that a failure from {@link startFailure} came from the process exiting with a non-zero code. */
export function expectNonZeroExit(message: string): void {
  expect(message).toMatch(/exited before it answered \(exit code [1-9]\d*\)/);
}
