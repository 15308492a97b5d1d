import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ConformanceOptions } from "../conformance/client.ts";
import { describeConformance } from "../conformance/describe.ts";
import { type RunningServer, type Runtime, restartServer, type StartOptions, startServer } from "../support/server.ts";

/** A task as the service answers it. */
export interface Task {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/** The list as one GET saw it. */
export interface ListSnapshot {
  readonly etag: string | null;
  readonly text: string;
  readonly tasks: readonly Task[];
}

const REQUEST_TIMEOUT_MS = 30_000;

/** Reads the list from the service at `baseUrl`. */
export async function readList(baseUrl: string): Promise<ListSnapshot> {
  const res = await fetch(`${baseUrl}/tasks`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { etag: res.headers.get("ETag"), text, tasks: JSON.parse(text) as Task[] };
}

/** Creates a task on the service at `baseUrl` and returns it. */
export async function createTask(baseUrl: string, task: { title: string; completed: boolean }): Promise<Task> {
  const res = await fetch(`${baseUrl}/tasks`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(task),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Task;
}

/**
 * Registers the conformance suite against one server started with `env`, then restarts that same
 * server: the list it left must come back whole, with the same ETag, and ids must continue. A list
 * the suite filled to MAX_TASKS cannot show ids continuing, so such a server gets no restart check.
 */
export function describeDurableServer(
  runtime: Runtime,
  title: string,
  env: () => Readonly<Record<string, string>>,
  options: ConformanceOptions,
  start: StartOptions = {},
): void {
  const basePath = options.basePath ?? "";
  describe(`${runtime} server, ${title}`, () => {
    let server: RunningServer | undefined;
    const running = (): RunningServer => {
      if (server === undefined) throw new Error(`The ${runtime} server did not start`);
      return server;
    };
    beforeAll(async () => {
      server = await startServer(runtime, env(), start);
    });
    afterAll(async () => {
      await server?.stop();
    });

    describeConformance(
      "conformance",
      () => ({ baseUrl: `${running().baseUrl}${basePath}`, fetch: fetchWithTimeout }),
      options,
    );

    if (options.maxTasks !== undefined) return;
    test("after a restart the server holds every task it had, with the same ETag, and ids continue", async () => {
      const before = await readList(`${running().baseUrl}${basePath}`);
      server = await restartServer(running());
      const baseUrl = `${running().baseUrl}${basePath}`;
      expect(await readList(baseUrl)).toEqual(before);
      expect(await createTask(baseUrl, { title: "After restart", completed: true })).toEqual({
        id: (before.tasks.at(-1)?.id ?? 0) + 1,
        title: "After restart",
        completed: true,
      });
    });
  });
}

/** Starts a server that must refuse to start, and returns the failure's message with the server's output. */
export async function startFailure(runtime: Runtime, env: Readonly<Record<string, string>>): Promise<string> {
  let server: RunningServer;
  try {
    server = await startServer(runtime, env);
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

function fetchWithTimeout(request: Request): Promise<Response> {
  return fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}
