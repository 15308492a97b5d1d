// A PostgreSQL schema restored from a dump: `npm run restore` starts each of its lists on a new
// history, under servers still running.
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { NEW_HISTORY } from "../../src/engine/new-history.ts";
import { runNpmScript } from "../support/npm-script.ts";
import { addAlice, expectNothingKeptHolds } from "../support/restore-scenario.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { asOperator, onPostgres } from "./servers.ts";

const { url } = inject("postgres");
/** The tables of the lists: what a dump of their schema holds. */
const TABLES = ["tasks", "lists", "directory", "list_keys", "deletions", "idempotency_keys", "idempotency_scopes"];

/** Keeps the rows of the list in `schema` aside, as a dump of it would. */
async function dump(schema: string): Promise<void> {
  await asOperator(url, (sql) =>
    sql.begin(async (tx) => {
      await tx.unsafe(`CREATE SCHEMA ${schema}_dump`);
      for (const table of TABLES) await tx.unsafe(`CREATE TABLE ${schema}_dump.${table} AS TABLE ${schema}.${table}`);
    }),
  );
}

/** Puts the rows {@link dump} kept back in place of the list's, as restoring the dump would. */
async function restoreDump(schema: string): Promise<void> {
  await asOperator(url, (sql) =>
    sql.begin(async (tx) => {
      await tx.unsafe(`TRUNCATE ${TABLES.map((table) => `${schema}.${table}`).join(", ")}`);
      for (const table of TABLES)
        await tx.unsafe(`INSERT INTO ${schema}.${table} SELECT * FROM ${schema}_dump.${table}`);
    }),
  );
}

/** Runs `npm run restore` on `schema`, as an operator does once its dump is back. */
async function restore(schema: string): Promise<void> {
  const run = await runNpmScript("restore", [], { DATABASE_URL: url, DATABASE_SCHEMA: schema });
  expect(run.stderr).toBe("");
  expect([run.code, run.stdout.trim()]).toEqual([0, `Schema ${schema} restored: ${NEW_HISTORY}`]);
}

describe("a PostgreSQL list restored from a dump, its server running", () => {
  const schema = "restored_by_script";
  let server: RunningServer | undefined;
  beforeAll(async () => {
    const { env, start } = onPostgres("node", url, schema);
    server = await startServer("node", env, start);
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("once npm run restore has run, an ETag or cursor kept from after the dump meets 200, 412 and a reset, not the task that took its id", async () => {
    const baseUrl = server?.baseUrl ?? "";
    await dump(schema);
    const kept = await addAlice(baseUrl);
    await restoreDump(schema);
    await restore(schema);
    await expectNothingKeptHolds(baseUrl, kept);
  });

  test("npm run restore refuses a schema that holds no list, and makes none", async () => {
    const run = await runNpmScript("restore", [], { DATABASE_URL: url, DATABASE_SCHEMA: "never_made" });
    expect([run.code, run.stderr.trim()]).toEqual([
      1,
      "DATABASE_SCHEMA never_made holds no task list: restore the dump of its tables first",
    ]);
    const [made] = await asOperator(url, (sql) => sql`SELECT to_regnamespace('never_made') IS NOT NULL AS made`);
    expect(made?.made).toBe(false);
  });
});
