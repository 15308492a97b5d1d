import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ConformanceOptions } from "../conformance/client.ts";
import { describeConformance } from "../conformance/describe.ts";
import { fetchReadingEarlyAnswers } from "../conformance/early-answer-fetch.ts";
import { createNamedList, NAMED_LIST_PATH } from "../conformance/named-list.ts";
import { coreStoreCases, fillingCases, storeCases } from "../conformance/suite.ts";
import { describeAlongside } from "../support/describe-alongside.ts";
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

/**
 * How long a request may take, its body included, before the test gives up on it: some read a list
 * of 18 MB, which took over 30 s with two suites running side by side on two cores. Below the test's
 * own time-out, so that a request that hangs is named.
 */
const REQUEST_TIMEOUT_MS = 120_000;

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

/** What {@link describeDurableServer} runs on its server beside the suite's cases. */
export interface DurableServerPlan {
  readonly start?: StartOptions | (() => StartOptions);
  /** The store's part of the suite, or its core: for where only the way a runtime reaches the store is new. */
  readonly part?: "store" | "core";
  /** False: the cases alone, the list neither filled nor the server restarted, as another runtime shows them. */
  readonly durability?: boolean;
  /** More tests on the same server, after the suite's cases and before the list is filled. */
  readonly alsoOnServer?: (server: () => RunningServer) => void;
  /**
   * "named": the cases on a named list only, for where the runtime's way to the store is what is
   * new and the default list's own paths are another runtime's to show on the same store.
   */
  readonly lists?: "default and named" | "named";
}

/**
 * Registers the store's part of the conformance suite (or, with `part` "core", its core) against
 * one server started with `env`, then (unless `durability` is false) the cases that fill the list
 * to the limits the options name, then restarts that same server: the list it left must come back
 * whole, with the same ETag, a keyed POST sent before it filled must replay (and return 422 with
 * another body), the full list must still refuse a task, and the id after the last task deleted
 * must not be given again.
 */
export function describeDurableServer(
  runtime: Runtime,
  title: string,
  env: () => Readonly<Record<string, string>>,
  options: ConformanceOptions,
  plan: DurableServerPlan = {},
): void {
  const { start = {}, part = "store", durability = true, lists = "default and named" } = plan;
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
    const target = () => ({ baseUrl: baseUrl(), fetch: fetchReadingEarlyAnswers });
    // A real server takes WebSocket subscribers too.
    const served = { ...options, sockets: true };

    if (lists === "default and named") {
      const cases = part === "store" ? storeCases(served) : coreStoreCases(served);
      describeConformance(`conformance, the store's ${part === "store" ? "part" : "core"}`, target, served, cases);
    }
    plan.alsoOnServer?.(running);
    test(`the ${runtime} server says at start where its lists live, and that they last across restarts`, () => {
      expect(running().output()).toMatch(
        /Lists are kept in (the SQLite file|Durable Objects|PostgreSQL)[^\n]*, across restarts/,
      );
    });
    // A named list of the store crosses the same server: the core cases under /lists/{name}.
    const named = { ...served, fresh: false, listPath: NAMED_LIST_PATH };
    describe("a named list", () => {
      beforeAll(() => createNamedList(fetch, baseUrl(), token));
      describeConformance("conformance, the store's core, on a named list", target, named, coreStoreCases(named));
    });
    if (!durability) return;

    // A keyed task from before the list filled up, which the restart below must replay.
    const key = `before-restart-${crypto.randomUUID()}`;
    const keyed = { title: "Keyed before restart", completed: false };
    let sent: Awaited<ReturnType<typeof postTask>> | undefined;
    const filling = fillingCases(options);
    describe("the list filled to its limits", () => {
      beforeAll(async () => {
        sent = await postTask(baseUrl(), keyed, token, key);
        expect(sent.status).toBe(200);
      });
      describeConformance("conformance", target, options, filling);
    });

    const full = filling.length > 0;
    test(`after a restart the server holds every task it had, with the same ETag, replays a keyed POST from before it${full ? ", still returns 507" : ""}, and gives the next id`, async () => {
      const before = await readList(baseUrl(), token);
      server = await restartServer(running());
      expect(await readList(baseUrl(), token)).toEqual(before);
      const replay = await postTask(baseUrl(), keyed, token, key);
      expect([replay.status, replay.text, replay.replayed]).toEqual([200, sent?.text, "true"]);
      expect((await postTask(baseUrl(), { ...keyed, completed: true }, token, key)).status).toBe(422);
      const last = before.tasks.at(-1)?.id ?? 0;
      if (full) {
        expect((await postTask(baseUrl(), { title: "Past the limit", completed: false }, token)).status).toBe(507);
        expect(await readList(baseUrl(), token)).toEqual(before);
        // Room for one more: the last task goes, and its id is not given again.
        const removed = await fetch(`${baseUrl()}/tasks/${last}`, { method: "DELETE", headers: authorization(token) });
        expect(removed.status).toBe(204);
      }
      expect(await createTask(baseUrl(), { title: "After restart", completed: true }, token)).toEqual({
        id: last + 1,
        title: "After restart",
        completed: true,
      });
    });
  });
}

function authorization(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}
