import { afterAll, beforeAll, inject } from "vitest";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS, FILLED_LIST } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { inProcessTarget } from "../conformance/in-process.ts";
import { processStore } from "./process-store.ts";

// The whole suite on PostgreSQL in this process; the servers of every runtime run the store's part
// of it through the same SQL (postgres-runtime.ts). The list is filled to 1 MiB, as on SQLite: each
// process reads it into a copy of its own, the memory store's form, which test/unit fills to 16 MiB.
const { url } = inject("postgres");
const plain = processStore(url, "conformance_default");
const configured = processStore(url, "conformance_configured");
beforeAll(() => Promise.all([plain.store.open(), configured.store.open()]));
afterAll(() => Promise.all([plain.sql.end(), configured.sql.end()]));

const defaults = inProcessTarget(plain.store, FILLED_LIST.env);
describeConformance("conformance through app.request, with the list in PostgreSQL", () => defaults, {
  fresh: true,
  maxListBytes: FILLED_LIST.maxListBytes,
});

const moved = inProcessTarget(configured.store, CONFIGURED_ENV);
describeConformance(
  "conformance through app.request, with the list in PostgreSQL and every setting configured",
  () => moved,
  { ...CONFIGURED_OPTIONS, fresh: true },
);
