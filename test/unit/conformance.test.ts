import { MemoryStore } from "../../src/store/memory.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { inProcessTarget } from "../conformance/in-process.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";

const defaults = inProcessTarget(new MemoryStore());
describeConformance("conformance through app.request, default configuration", () => defaults, {
  fresh: true,
  maxListBytes: DEFAULT_MAX_LIST_BYTES,
});

const configured = inProcessTarget(new MemoryStore(), CONFIGURED_ENV);
describeConformance("conformance through app.request, every setting configured", () => configured, {
  ...CONFIGURED_OPTIONS,
  fresh: true,
});
