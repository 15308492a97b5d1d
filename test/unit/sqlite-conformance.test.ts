import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { SqliteFileLists } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS, FILLED_LIST } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { inProcessTarget } from "../conformance/in-process.ts";
import { createNamedList, NAMED_LIST_PATH } from "../conformance/named-list.ts";
import { sqliteDefaultList } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "task-list-sqlite-conformance-"));
const defaultFile = openNodeSqlite(join(dir, "default.db"));
const configuredFile = openNodeSqlite(join(dir, "configured.db"));
const namedFile = openNodeSqlite(join(dir, "named.db"));
afterAll(() => {
  defaultFile.close();
  configuredFile.close();
  namedFile.close();
  rmSync(dir, { recursive: true, force: true });
});

// The list is filled to 1 MiB: the store holds it in memory as the memory store does, which
// test/unit/conformance.test.ts fills to the default 16 MiB; test/sqlite serves a file past it.
const defaults = inProcessTarget(sqliteDefaultList(defaultFile), FILLED_LIST.env);
describeConformance("conformance through app.request, with the list in a SQLite file", () => defaults, {
  fresh: true,
  maxListBytes: FILLED_LIST.maxListBytes,
  oneList: true,
});

// Every setting moved, on node:sqlite; test/sqlite runs the store's part of it through Bun's driver.
const configured = inProcessTarget(sqliteDefaultList(configuredFile), CONFIGURED_ENV);
describeConformance(
  "conformance through app.request, with the list in a SQLite file and every setting configured",
  () => configured,
  { ...CONFIGURED_OPTIONS, fresh: true, oneList: true },
);

// A named list of the file is the whole contract too.
const named = inProcessTarget({ lists: new SqliteFileLists(namedFile) }, CONFIGURED_ENV);
beforeAll(() => createNamedList((request) => named.fetch(request), named.baseUrl, CONFIGURED_OPTIONS.tokens?.write));
describeConformance(
  "conformance through app.request, a named list in a SQLite file, every setting configured",
  () => named,
  { ...CONFIGURED_OPTIONS, listPath: NAMED_LIST_PATH },
);
