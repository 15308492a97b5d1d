import { afterAll, beforeAll, expect, test } from "vitest";
import type { ConformanceOptions } from "../conformance/client.ts";
import { describeConformance } from "../conformance/describe.ts";
import { casesBeforeLimits, fillingCases } from "../conformance/suite.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";
import { describeAlongside } from "../support/describe-alongside.ts";
import { type RunningServer, type Runtime, restartServer, type StartOptions, startServer } from "../support/server.ts";

/**
 * The MAX_LIST_BYTES a durable server is filled to: the default 16 MiB on Node, to show each store
 * at the default, and 1 MiB on the other runtimes, whose stores run the same code and would only
 * spend time filling 16 MiB again. (The Durable Object is filled to the default in workerd itself,
 * by test/workers/durable-conformance.test.ts.)
 */
export function listByteLimit(runtime: Runtime): { env: Record<string, string>; maxListBytes: number } {
  if (runtime === "node") return { env: {}, maxListBytes: DEFAULT_MAX_LIST_BYTES };
  return { env: { MAX_LIST_BYTES: String(FILLED_LIST_BYTES) }, maxListBytes: FILLED_LIST_BYTES };
}

const FILLED_LIST_BYTES = 1024 * 1024;

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

/** Reads the list from the service at `baseUrl`, with `token` as a bearer token when given. */
export async function readList(baseUrl: string, token?: string): Promise<ListSnapshot> {
  const res = await fetch(`${baseUrl}/tasks`, {
    headers: authorization(token),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { etag: res.headers.get("ETag"), text, tasks: JSON.parse(text) as Task[] };
}

/**
 * Sends a task to the service at `baseUrl`, with `key` as its Idempotency-Key when given, and
 * returns the response's status, body and Idempotent-Replayed header.
 */
export async function postTask(
  baseUrl: string,
  task: { title: string; completed: boolean },
  token?: string,
  key?: string,
): Promise<{ status: number; text: string; replayed: string | null }> {
  const res = await fetch(`${baseUrl}/tasks`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...authorization(token),
      ...(key === undefined ? {} : { "Idempotency-Key": key }),
    },
    body: JSON.stringify(task),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: res.status, text: await res.text(), replayed: res.headers.get("Idempotent-Replayed") };
}

/** Creates a task on the service at `baseUrl` and returns it. */
export async function createTask(
  baseUrl: string,
  task: { title: string; completed: boolean },
  token?: string,
): Promise<Task> {
  const { status, text } = await postTask(baseUrl, task, token);
  expect(status).toBe(200);
  return JSON.parse(text) as Task;
}

/**
 * Registers the conformance suite against one server started with `env`, then restarts that same
 * server: the list it left must come back whole, with the same ETag, a keyed POST sent before it
 * must replay (and return 422 with another body), and ids must continue. When
 * the options name a limit, the cases that fill the list follow, and a second restart must bring
 * the full list back whole and still refuse a task.
 */
export function describeDurableServer(
  runtime: Runtime,
  title: string,
  env: () => Readonly<Record<string, string>>,
  options: ConformanceOptions,
  start: StartOptions | (() => StartOptions) = {},
): void {
  const basePath = options.basePath ?? "";
  const token = options.tokens?.write;
  describeAlongside(`${runtime} server, ${title}`, () => {
    let server: RunningServer | undefined;
    const running = (): RunningServer => {
      if (server === undefined) throw new Error(`The ${runtime} server did not start`);
      return server;
    };
    const baseUrl = () => `${running().baseUrl}${basePath}`;
    beforeAll(async () => {
      server = await startServer(runtime, env(), typeof start === "function" ? start() : start);
    });
    afterAll(async () => {
      await server?.stop();
    });
    const target = () => ({ baseUrl: baseUrl(), fetch: fetchWithTimeout });
    // A real server takes WebSocket subscribers too.
    const served = { ...options, sockets: true, lateLeaving: runtime === "wrangler" };

    describeConformance("conformance", target, served, casesBeforeLimits(served));

    test("after a restart the server holds every task it had, with the same ETag, replays a keyed POST from before it, and ids continue", async () => {
      const key = `before-restart-${crypto.randomUUID()}`;
      const keyed = { title: "Keyed before restart", completed: false };
      const sent = await postTask(baseUrl(), keyed, token, key);
      expect(sent.status).toBe(200);
      const before = await readList(baseUrl(), token);
      server = await restartServer(running());
      expect(await readList(baseUrl(), token)).toEqual(before);
      const replay = await postTask(baseUrl(), keyed, token, key);
      expect([replay.status, replay.text, replay.replayed]).toEqual([200, sent.text, "true"]);
      const reused = await postTask(baseUrl(), { ...keyed, completed: true }, token, key);
      expect(reused.status).toBe(422);
      expect(await readList(baseUrl(), token)).toEqual(before);
      expect(await createTask(baseUrl(), { title: "After restart", completed: true }, token)).toEqual({
        id: (before.tasks.at(-1)?.id ?? 0) + 1,
        title: "After restart",
        completed: true,
      });
    });

    const filling = fillingCases(options);
    if (filling.length === 0) return;
    describeConformance("the list filled to its limits", target, options, filling);

    test("after a restart a full list comes back whole, with the same ETag, and still returns 507", async () => {
      const before = await readList(baseUrl(), token);
      server = await restartServer(running());
      expect(await readList(baseUrl(), token)).toEqual(before);
      expect((await postTask(baseUrl(), { title: "Past the limit", completed: false }, token)).status).toBe(507);
      expect(await readList(baseUrl(), token)).toEqual(before);
    });
  });
}

function authorization(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}

function fetchWithTimeout(request: Request): Promise<Response> {
  return fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}
