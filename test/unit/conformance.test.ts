import { beforeAll } from "vitest";
import { HeldLists } from "../../src/engine/held-lists.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { inProcessTarget } from "../conformance/in-process.ts";
import { createNamedList, NAMED_LIST_PATH } from "../conformance/named-list.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";

const defaults = inProcessTarget(new MemoryStore());
describeConformance("conformance through app.request, default configuration", () => defaults, {
  fresh: true,
  oneList: true,
  maxListBytes: DEFAULT_MAX_LIST_BYTES,
});

const configured = inProcessTarget(new MemoryStore(), CONFIGURED_ENV);
describeConformance("conformance through app.request, every setting configured", () => configured, {
  ...CONFIGURED_OPTIONS,
  fresh: true,
  oneList: true,
});

// A named list is the whole contract too: the suite's requests to the list go under /lists/{name}.
const lists = new HeldLists();
const named = inProcessTarget({ lists }, CONFIGURED_ENV);
beforeAll(() => createNamedList((request) => named.fetch(request), named.baseUrl, CONFIGURED_OPTIONS.tokens?.write));
describeConformance("conformance through app.request, a named list, every setting configured", () => named, {
  ...CONFIGURED_OPTIONS,
  listPath: NAMED_LIST_PATH,
});
