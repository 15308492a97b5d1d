// A PostgreSQL schema restored from a dump: `npm run restore` starts each of its lists on a new
// history, under servers still running, on a schema of the version before too.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { NEW_HISTORY } from "../../src/engine/new-history.ts";
import { SCHEMA_VERSION } from "../../src/store/postgres/migrations.ts";
import { runNpmScript } from "../support/npm-script.ts";
import { addAlice, expectNothingKeptHolds } from "../support/restore-scenario.ts";
import { type RunningServer, startServer } from "../support/server.ts";
import { addTask, createList } from "../unit/list-requests.ts";
import { processStore } from "./process-store.ts";
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

const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

/** The functions in `schema`, by name. */
async function functionsOf(schema: string): Promise<string[]> {
  const rows = await asOperator(
    url,
    (sql) => sql`SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = ${schema} ORDER BY p.proname`,
  );
  return rows.map((row) => String(row.proname));
}

/** Each list's row and its tasks' change numbers, by name. */
async function listsOf(schema: string): Promise<Record<string, unknown>[]> {
  return asOperator(
    url,
    (sql) => sql`SELECT l.name, l.live, l.instance, l.last_id, l.change_number::float8 AS change,
        l.forgotten::float8 AS forgotten,
        (SELECT array_agg(t.changed::float8 - t.id ORDER BY t.id) FROM ${sql(schema)}.tasks t WHERE t.list = l.name) AS starts,
        (SELECT count(*)::int FROM ${sql(schema)}.deletions d WHERE d.list = l.name) AS deletions,
        (SELECT count(*)::int FROM ${sql(schema)}.journal j WHERE j.list = l.name) AS journal
      FROM ${sql(schema)}.lists l ORDER BY l.name`,
  );
}

test("a schema of version 5 loses its restored() function on migrating, and npm run restore gives every list, a deleted one too, a new instance and change numbers past its old ones", async () => {
  const schema = "restored_from_v5";
  const { lists, sql } = processStore(url, schema);
  pools.push(sql);
  await lists.open();
  const app = createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off" }) });
  await addTask(app, "default", "Kept");
  expect((await app.request("/tasks/1", { method: "DELETE" })).status).toBe(204);
  await createList(app, "gone");
  await addTask(app, "gone");
  expect((await app.request("/lists/gone", { method: "DELETE" })).status).toBe(204);
  // A schema made afresh holds the one function, as one brought up to date must.
  expect(await functionsOf(schema)).toEqual(["apply_change"]);
  await asOperator(url, (admin) =>
    admin
      .unsafe(`CREATE FUNCTION ${schema}.restored() RETURNS text LANGUAGE sql AS $$SELECT 'restored'$$;
      UPDATE ${schema}.schema_version SET version = 5`)
      .simple(),
  );
  const before = await listsOf(schema);
  expect(before.map((list) => [list.name, list.live, list.deletions])).toEqual([
    ["default", true, 1],
    ["gone", false, 0],
  ]);

  await restore(schema);

  expect(await functionsOf(schema)).toEqual(["apply_change"]);
  const [version] = await asOperator(url, (admin) => admin.unsafe(`SELECT version FROM ${schema}.schema_version`));
  expect(version?.version).toBe(SCHEMA_VERSION);
  const after = await listsOf(schema);
  expect(after.map((list) => list.name)).toEqual(["default", "gone"]);
  for (const [index, list] of after.entries()) {
    const old = before[index] ?? {};
    expect(list.instance).not.toBe(old.instance);
    expect(list.forgotten).toBeGreaterThan(Number(old.change));
    // Each task made again by change start + id, the start being where the list now forgets up to.
    expect(list).toMatchObject({
      live: old.live,
      change: Number(list.forgotten) + Number(list.last_id),
      starts: old.starts === null ? null : (old.starts as number[]).map(() => list.forgotten),
      deletions: 0,
      journal: 0,
    });
  }
});

test("a task write that commits while the restore waits on its list's row is made again too", async () => {
  const schema = "restored_under_write";
  const { lists, sql } = processStore(url, schema);
  pools.push(sql);
  await lists.open();
  const writer = postgres(url, { max: 1, fetch_types: false, onnotice: () => {} });
  pools.push(writer);
  // What apply_change writes for an added task, its transaction held open.
  await writer
    .unsafe(`BEGIN;
    UPDATE ${schema}.lists SET change_number = change_number + 1, last_id = 3, task_count = 3 WHERE name = 'default';
    INSERT INTO ${schema}.tasks (list, id, title_json, completed, created, changed)
      VALUES ('default', 3, '"Under the restore"', false, 3, 3)`)
    .simple();
  const restoring = lists.restored();
  await asOperator(url, async (admin) => {
    for (;;) {
      const [waiting] =
        await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ${`%${schema}%FOR UPDATE%`}`;
      if (waiting?.n === 1) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  await writer.unsafe("COMMIT");
  expect(await restoring).toBe(`Schema ${schema} restored: ${NEW_HISTORY}`);
  const [list] = await listsOf(schema);
  expect(list).toMatchObject({ last_id: 3, starts: [list?.forgotten, list?.forgotten, list?.forgotten] });
  expect(list?.change).toBe(Number(list?.forgotten) + 3);
});
