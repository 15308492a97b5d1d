// The lists' own rules and a list's life, as test/unit runs them on lists in memory, on lists in
// PostgreSQL: each test's app on a schema of its own.
import type postgres from "postgres";
import { afterAll, inject } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { describeListLifecycle, type ListsApp } from "../unit/list-lifecycle-rules.ts";
import { describeListRules } from "../unit/list-rules.ts";
import { processStore } from "./process-store.ts";

const { url } = inject("postgres");
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

let schemas = 0;
const listsApp: ListsApp = async (env = {}, upgradeWebSocket) => {
  const { lists, sql } = processStore(url, `lists_rules_${schemas++}`);
  pools.push(sql);
  await lists.open();
  return createApp({
    lists,
    config: parseAppConfig({ LOG_LEVEL: "off", ...env }),
    ...(upgradeWebSocket === undefined ? {} : { upgradeWebSocket }),
  });
};

describeListRules("lists in PostgreSQL", (env) => listsApp(env));
describeListLifecycle("lists in PostgreSQL", listsApp);
