import { exports } from "cloudflare:workers";
import { beforeAll, expect } from "vitest";
import { describeConformance } from "../conformance/describe.ts";

// A named list is the whole contract too, in its own Durable Object: the suite's requests to the
// list go under /lists/{name}, through the Worker, which created it through the directory object.
// Filling a list to the default MAX_LIST_BYTES is durable-conformance.test.ts's, on an object of
// the same class.
beforeAll(async () => {
  const created = await exports.default.fetch("http://example.com/lists/conformance", {
    method: "PUT",
    body: JSON.stringify({ title: "Conformance" }),
    headers: { "Content-Type": "application/json" },
  });
  expect(created.status).toBe(201);
});
describeConformance(
  "conformance in workerd through the Worker's fetch, a named list in its own Durable Object",
  () => ({ baseUrl: "http://example.com", fetch: (request) => exports.default.fetch(request) }),
  { worker: true, listPath: "/lists/conformance" },
);
