import { afterEach, describe, expect, test, vi } from "vitest";
import type { TaskStore } from "../../src/engine/task-store.ts";
import { appFrom, ENTRY_POINTS, expectJsonError, failingKeys } from "./helpers.ts";

const SECRET = "disk full at /var/lib/tasks/secret.db";

/** Fault-injection doubles: stores that fail in each way a real one might. */
const FAILURES: readonly { kind: string; store: () => TaskStore }[] = [
  {
    kind: "rejects with an Error",
    store: () => ({
      read: async () => {
        throw new Error(SECRET);
      },
      append: async () => {
        throw new Error(SECRET);
      },
      update: async () => {
        throw new Error(SECRET);
      },
      remove: async () => {
        throw new Error(SECRET);
      },
      nextChange: async () => {
        throw new Error(SECRET);
      },
      keys: failingKeys(async () => {
        throw new Error(SECRET);
      }),
    }),
  },
  {
    kind: "throws synchronously",
    store: () => {
      const fail = (): never => {
        throw new TypeError(SECRET);
      };
      return { read: fail, append: fail, update: fail, remove: fail, nextChange: fail, keys: failingKeys(fail) };
    },
  },
  {
    kind: "rejects with something that is not an Error",
    store: () => ({
      read: () => Promise.reject(SECRET),
      append: () => Promise.reject(SECRET),
      update: () => Promise.reject(SECRET),
      remove: () => Promise.reject(SECRET),
      nextChange: () => Promise.reject(SECRET),
      keys: failingKeys(() => Promise.reject(SECRET)),
    }),
  },
];

/** Everything written to the log, as one text. */
function logged(calls: readonly unknown[][]): string {
  return calls.map((args) => args.map(String).join(" ")).join("\n");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(ENTRY_POINTS)("a store failure on $path", ({ env, path }) => {
  const requests: readonly { method: string; init: RequestInit }[] = [
    { method: "GET", init: {} },
    {
      method: "POST",
      init: {
        method: "POST",
        body: JSON.stringify({ title: "Never stored", completed: true }),
        headers: { "Content-Type": "application/json" },
      },
    },
  ];

  describe.each(FAILURES)("when the store $kind", ({ store }) => {
    test.each(requests)("$method returns 500 with only the generic message and logs the detail", async ({ init }) => {
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const res = await appFrom(env, store()).request(path, init);
      await expectJsonError(res, 500, "Internal server error");
      expect(logged(log.mock.calls)).toContain(SECRET);
    });

    test("HEAD returns 500 with no body and logs the detail", async () => {
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const res = await appFrom(env, store()).request(path, { method: "HEAD" });
      expect(res.status).toBe(500);
      expect(await res.text()).toBe("");
      expect(logged(log.mock.calls)).toContain(SECRET);
    });
  });
});
