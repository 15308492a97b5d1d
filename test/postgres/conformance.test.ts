import { afterAll, beforeAll, inject } from "vitest";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS, FILLED_LIST } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { inProcessTarget } from "../conformance/in-process.ts";
import { createNamedList, NAMED_LIST_PATH } from "../conformance/named-list.ts";
import { processStore } from "./process-store.ts";

// The whole suite on PostgreSQL in this process; the servers of every runtime run the store's part
// of it through the same SQL (postgres-runtime.ts). The list is filled to 1 MiB, as on SQLite: each
// process reads it into a copy of its own, the memory store's form, which test/unit fills to 16 MiB.
const { url } = inject("postgres");
const plain = processStore(url, "conformance_default");
const configured = processStore(url, "conformance_configured");
const many = processStore(url, "conformance_named");
beforeAll(() => Promise.all([plain.lists.open(), configured.lists.open(), many.lists.open()]));
afterAll(() => Promise.all([plain.sql.end(), configured.sql.end(), many.sql.end()]));

const defaults = inProcessTarget({ lists: plain.lists }, FILLED_LIST.env);
describeConformance("conformance through app.request, with the list in PostgreSQL", () => defaults, {
  fresh: true,
  maxListBytes: FILLED_LIST.maxListBytes,
});

const moved = inProcessTarget({ lists: configured.lists }, CONFIGURED_ENV);
describeConformance(
  "conformance through app.request, with the list in PostgreSQL and every setting configured",
  () => moved,
  { ...CONFIGURED_OPTIONS, fresh: true },
);

// A named list is the whole contract too: the suite's requests to the list go under /lists/{name}.
const named = inProcessTarget({ lists: many.lists }, CONFIGURED_ENV);
beforeAll(() => createNamedList((request) => named.fetch(request), named.baseUrl, CONFIGURED_OPTIONS.tokens?.write));
describeConformance(
  "conformance through app.request, a named list in PostgreSQL, every setting configured",
  () => named,
  { ...CONFIGURED_OPTIONS, listPath: NAMED_LIST_PATH },
);
