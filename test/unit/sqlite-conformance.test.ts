import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { SqliteFileStore } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { inProcessTarget } from "../conformance/in-process.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";

const dir = mkdtempSync(join(tmpdir(), "task-list-sqlite-conformance-"));
const defaultFile = openNodeSqlite(join(dir, "default.db"));
const configuredFile = openNodeSqlite(join(dir, "configured.db"));
afterAll(() => {
  defaultFile.close();
  configuredFile.close();
  rmSync(dir, { recursive: true, force: true });
});

const defaults = inProcessTarget(new SqliteFileStore(defaultFile));
describeConformance("conformance through app.request, with the list in a SQLite file", () => defaults, {
  fresh: true,
  maxListBytes: DEFAULT_MAX_LIST_BYTES,
});

// Every setting moved, on node:sqlite; test/sqlite runs the store's part of it through Bun's driver.
const configured = inProcessTarget(new SqliteFileStore(configuredFile), CONFIGURED_ENV);
describeConformance(
  "conformance through app.request, with the list in a SQLite file and every setting configured",
  () => configured,
  { ...CONFIGURED_OPTIONS, fresh: true },
);
