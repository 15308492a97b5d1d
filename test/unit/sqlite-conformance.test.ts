import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { SqliteFileStore } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { describeConformance } from "../conformance/describe.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";

const dir = mkdtempSync(join(tmpdir(), "task-list-sqlite-conformance-"));
const connection = openNodeSqlite(join(dir, "tasks.db"));
const app = createApp({ store: new SqliteFileStore(connection), config: parseAppConfig({ LOG_LEVEL: "off" }) });
afterAll(() => {
  connection.close();
  rmSync(dir, { recursive: true, force: true });
});

describeConformance(
  "conformance through app.request, with the list in a SQLite file",
  () => ({ baseUrl: "http://localhost", fetch: async (request) => app.request(request) }),
  { fresh: true, maxListBytes: DEFAULT_MAX_LIST_BYTES },
);
