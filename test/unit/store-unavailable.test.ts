import { afterEach, describe, expect, test, vi } from "vitest";
import type { TaskStore } from "../../src/engine/task-store.ts";
import { StoreUnavailableError } from "../../src/errors.ts";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";
import type { ListObjectNamespace } from "../../src/store/durable-object/list-object-rpc.ts";
import { checkedAgainstOpenApi } from "../support/openapi-check.ts";
import { appFrom, ENTRY_POINTS, expectJsonError, failingKeys } from "./helpers.ts";

const DETAIL = "connect ECONNREFUSED 10.0.0.7:5432";
const MESSAGE = "Task list store cannot be reached: try again in a moment";

/** Stores that cannot reach where the list lives, failing in each way a remote store might. */
const UNREACHABLE: readonly { kind: string; store: () => TaskStore }[] = [
  {
    kind: "rejects",
    store: () => ({
      read: () => Promise.reject(new StoreUnavailableError(DETAIL)),
      append: () => Promise.reject(new StoreUnavailableError(DETAIL)),
      update: () => Promise.reject(new StoreUnavailableError(DETAIL)),
      remove: () => Promise.reject(new StoreUnavailableError(DETAIL)),
      nextChange: () => Promise.reject(new StoreUnavailableError(DETAIL)),
      keys: failingKeys(() => Promise.reject(new StoreUnavailableError(DETAIL))),
    }),
  },
  {
    kind: "throws synchronously",
    store: () => {
      const fail = (): never => {
        throw new StoreUnavailableError(DETAIL);
      };
      return { read: fail, append: fail, update: fail, remove: fail, nextChange: fail, keys: failingKeys(fail) };
    },
  },
];

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(ENTRY_POINTS)("a store that cannot be reached, on $path", ({ env, path }) => {
  describe.each(UNREACHABLE)("when it $kind", ({ store }) => {
    test.each([
      { method: "GET", init: {} },
      {
        method: "POST",
        init: {
          method: "POST",
          body: JSON.stringify({ title: "Not now", completed: false }),
          headers: { "Content-Type": "application/json" },
        },
      },
    ])("$method returns 503 with Retry-After and the contract's message, and logs the cause", async ({ init }) => {
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const app = appFrom(env, store());
      const basePath = typeof env.BASE_PATH === "string" ? env.BASE_PATH : "";
      const res = await checkedAgainstOpenApi(
        async (request) => app.request(request),
        basePath,
      )(new Request(`http://localhost${path}`, init));
      expect(res.headers.get("Retry-After")).toBe("1");
      await expectJsonError(res, 503, MESSAGE);
      const logged = log.mock.calls.map((args) => args.join(" ")).join("\n");
      expect(logged).toContain('"status":503');
      expect(logged).toContain(`StoreUnavailableError`);
      expect(logged).toContain(DETAIL);
    });

    test("HEAD returns 503 with Retry-After and no body", async () => {
      vi.spyOn(console, "error").mockImplementation(() => {});
      const res = await appFrom(env, store()).request(path, { method: "HEAD" });
      expect(res.status).toBe(503);
      expect(res.headers.get("Retry-After")).toBe("1");
      expect(await res.text()).toBe("");
    });
  });
});

test("a POST that the store refuses as unreachable is still checked first: a bad body returns 400, not 503", async () => {
  const app = appFrom({}, UNREACHABLE[0]?.store());
  const res = await app.request("/tasks", {
    method: "POST",
    body: JSON.stringify({ title: "No status" }),
    headers: { "Content-Type": "application/json" },
  });
  await expectJsonError(res, 400, "Title or completed status is missing");
});

describe("a Durable Object the Worker cannot reach", () => {
  /** A binding whose object fails every call with `error`, as Cloudflare's RPC fails. */
  const failingObject = (error: Error): ListObjectNamespace => {
    const fail = () => Promise.reject(error);
    return {
      getByName: () => ({
        changes: fail,
        append: fail,
        update: fail,
        remove: fail,
        nextChange: fail,
        stopWaiting: fail,
        fetch: fail,
        state: fail,
        keys: fail,
        addKey: fail,
        removeKey: fail,
        keyOf: fail,
        nextKeyChange: fail,
        stopKeyWait: fail,
        create: fail,
        retitle: fail,
        delete: fail,
      }),
    };
  };
  const rpcError = (message: string, flags: { retryable?: boolean; overloaded?: boolean }) =>
    Object.assign(new Error(message), flags);
  const post = {
    method: "POST",
    body: JSON.stringify({ title: "Not now", completed: false }),
    headers: { "Content-Type": "application/json" },
  };

  test.each([
    {
      kind: "reset by a deploy",
      error: rpcError("Durable Object reset because its code was updated.", { retryable: true }),
    },
    {
      kind: "overloaded",
      error: rpcError("Durable Object is overloaded. Too many requests queued.", { overloaded: true }),
    },
    { kind: "cut off from the Worker", error: rpcError("Network connection lost.", { retryable: true }) },
  ])("when the object is $kind, GET and POST return 503 with Retry-After", async ({ error }) => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const app = appFrom({}, new DurableObjectStore(failingObject(error)));
    for (const res of [await app.request("/tasks"), await app.request("/tasks", post)]) {
      expect(res.headers.get("Retry-After")).toBe("1");
      await expectJsonError(res, 503, MESSAGE);
    }
  });

  test("what the object's own code throws stays an unexpected failure: 500", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const app = appFrom({}, new DurableObjectStore(failingObject(new TypeError("not a task"))));
    await expectJsonError(await app.request("/tasks", post), 500, "Internal server error");
  });
});
