import { exports } from "cloudflare:workers";
import { describeConformance } from "../conformance/describe.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";

// Each test file runs in its own Worker, so the list starts with the two initial tasks.
describeConformance(
  "conformance in workerd through the Worker's fetch",
  () => ({ baseUrl: "http://example.com", fetch: (request) => exports.default.fetch(request) }),
  { fresh: true, maxListBytes: DEFAULT_MAX_LIST_BYTES },
);
