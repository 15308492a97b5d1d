import { afterAll, beforeAll, inject } from "vitest";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { inProcessTarget } from "../conformance/in-process.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";
import { processStore } from "./process-store.ts";

// The whole suite on PostgreSQL in this process, filled to the default MAX_LIST_BYTES; the servers
// of every runtime run the store's part of it through the same SQL (postgres-runtime.ts).
const { url } = inject("postgres");
const plain = processStore(url, "conformance_default");
const configured = processStore(url, "conformance_configured");
beforeAll(() => Promise.all([plain.store.open(), configured.store.open()]));
afterAll(() => Promise.all([plain.sql.end(), configured.sql.end()]));

const defaults = inProcessTarget(plain.store);
describeConformance("conformance through app.request, with the list in PostgreSQL", () => defaults, {
  fresh: true,
  maxListBytes: DEFAULT_MAX_LIST_BYTES,
});

const moved = inProcessTarget(configured.store, CONFIGURED_ENV);
describeConformance(
  "conformance through app.request, with the list in PostgreSQL and every setting configured",
  () => moved,
  { ...CONFIGURED_OPTIONS, fresh: true },
);
