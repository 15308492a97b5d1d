// The lists' own rules and a list's life, as test/unit runs them on the stores of one process, on
// lists in PostgreSQL: each test's lists in a schema of their own.
import type postgres from "postgres";
import { afterAll, describe, inject } from "vitest";
import type { PostgresLists } from "../../src/store/postgres/postgres-lists.ts";
import { describeListLifecycle } from "../unit/list-lifecycle-rules.ts";
import { describeListRules } from "../unit/list-rules.ts";
import { processStore } from "./process-store.ts";

const { url } = inject("postgres");
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

let schemas = 0;
async function newLists(): Promise<PostgresLists> {
  const { lists, sql } = processStore(url, `lists_rules_${schemas++}`);
  pools.push(sql);
  await lists.open();
  return lists;
}

describe("lists in PostgreSQL", () => {
  describeListRules(newLists);
  describeListLifecycle(newLists);
});
