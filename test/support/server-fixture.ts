import { afterAll, beforeAll } from "vitest";
import { type RunningServer, type Runtime, startServer } from "./server.ts";

/**
 * Starts a server on `runtime` before the enclosing describe's tests and stops it after them, even
 * when they fail. The returned function gives the server; if it did not start, it throws the
 * start error with the server's output, so every test that needs it fails with that reason.
 */
export function useServer(runtime: Runtime, env: Readonly<Record<string, string>>): () => RunningServer {
  let server: RunningServer | undefined;
  let startFailure: unknown;
  beforeAll(async () => {
    try {
      server = await startServer(runtime, env);
    } catch (error) {
      startFailure = error;
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
