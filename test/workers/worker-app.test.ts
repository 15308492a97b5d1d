import { env, exports, waitUntil } from "cloudflare:workers";
import { expect, test } from "vitest";
import { createWorkerApp } from "../../src/runtimes/worker-app.ts";

test("the Worker serves the two initial tasks", async () => {
  const res = await exports.default.fetch("http://example.com/tasks");
  expect(res.status).toBe(200);
  expect(await res.json()).toHaveLength(2);
});

// What the Worker does as it loads, with settings it cannot use: it throws, so it fails to load
// (test/conformance shows wrangler dev's command line exiting on one such Worker).
test.each([
  {
    setting: { MAX_LIST_BYTES: "25165825" },
    message: 'MAX_LIST_BYTES must be a whole number from 2 to 25165824 on Cloudflare Workers, got "25165825"',
  },
  {
    setting: { TASK_STORE: "durable" },
    message: "TASK_STORE is durable but the TASK_LIST Durable Object binding is missing",
  },
])("the Worker refuses $setting as it loads, naming the setting", async ({ setting, message }) => {
  await expect(createWorkerApp({ ...env, ...setting }, { bindings: env, waitUntil })).rejects.toThrow(message);
});
