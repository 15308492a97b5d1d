import { exports } from "cloudflare:workers";
import { describeConformance } from "../conformance/describe.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";

// The `durable` environment: every request reaches the list through the TaskListObject.
describeConformance(
  "conformance in workerd through the Worker's fetch, with the list in a Durable Object",
  () => ({ baseUrl: "http://example.com", fetch: (request) => exports.default.fetch(request) }),
  { fresh: true, maxListBytes: DEFAULT_MAX_LIST_BYTES, worker: true },
);
