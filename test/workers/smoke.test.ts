import { exports } from "cloudflare:workers";
import { expect, test } from "vitest";

test("the Worker serves the two initial tasks", async () => {
  const res = await exports.default.fetch("http://example.com/tasks");
  expect(res.status).toBe(200);
  expect(await res.json()).toHaveLength(2);
});
