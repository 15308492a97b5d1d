// Two processes' copies of one PostgreSQL list deciding writes against the same change number, and
// two processes deciding list writes against the same directory: the database takes one, the other
// process catches up and decides again.
import postgres from "postgres";
import { afterAll, expect, inject, test } from "vitest";
import { INITIAL_TASKS, type Task } from "../../src/list/task.ts";
import { PostgresLists } from "../../src/store/postgres/postgres-lists.ts";
import { asOperator } from "./servers.ts";

const { url } = inject("postgres");
const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

/**
 * Holds the first task write that reaches the database until a second one reaches it from another
 * process: both were decided before either was written. Records what the database answered each.
 */
function raced(marker = "apply_change("): {
  pool: (sql: postgres.Sql) => postgres.Sql;
  answers: string[];
  catchUps: { count: number };
} {
  const answers: string[] = [];
  const catchUps = { count: 0 };
  let held: (() => void) | undefined;
  let met = false;
  const pool = (sql: postgres.Sql) =>
    new Proxy(sql, {
      get(target, property) {
        if (property !== "unsafe") return Reflect.get(target, property);
        return (...args: Parameters<postgres.Sql["unsafe"]>) => {
          if (args[0].startsWith("WITH state AS")) catchUps.count++;
          if (!args[0].startsWith(marker.startsWith("apply") ? "SELECT" : "WITH") || !args[0].includes(marker)) {
            return target.unsafe(...args);
          }
          const waited: Promise<void> = met
            ? Promise.resolve()
            : held === undefined
              ? new Promise((go) => {
                  held = go;
                })
              : Promise.resolve().then(() => {
                  met = true;
                  held?.();
                });
          return waited
            .then(() => target.unsafe(...args))
            .then((rows) => {
              answers.push(marker.startsWith("apply") ? String(rows[0]?.outcome) : `${rows.length} written`);
              return rows;
            });
        };
      },
    });
  return { pool, answers, catchUps };
}

/** Two processes' lists in `schema`, each with a pool of its own passed through `pool`, opened and read. */
async function twoProcesses(schema: string, pool: (sql: postgres.Sql) => postgres.Sql): Promise<PostgresLists[]> {
  const processes = [0, 1].map(() => {
    const sql = postgres(url, { max: 2, fetch_types: false, onnotice: () => {} });
    pools.push(sql);
    const through = pool(sql);
    return new PostgresLists((work) => work(through), schema, {
      listen: (channel, onNotify, onListen) => sql.listen(channel, onNotify, onListen),
    });
  });
  for (const lists of processes) {
    await lists.open();
    (await lists.list("default").read()).version;
  }
  return processes;
}

async function tasksOf(schema: string): Promise<Task[]> {
  return asOperator(url, async (sql) => {
    const rows = await sql.unsafe(`SELECT id, title_json, completed FROM "${schema}".tasks ORDER BY id`);
    return rows.map((row) => ({
      id: Number(row.id),
      title: JSON.parse(String(row.title_json)) as string,
      completed: row.completed === true,
    }));
  });
}

test("two processes appending at the same change number: one is written, the other, told the change it met, decided again after it with the next id", async () => {
  const schema = "optimistic_appends";
  const { pool, answers, catchUps } = raced();
  const [first, second] = await twoProcesses(schema, pool);
  if (first === undefined || second === undefined) throw new Error("Two processes were opened");
  catchUps.count = 0;
  const results = await Promise.all([
    first.list("default").append({ title: "From the first", completed: false }, LIMITS),
    second.list("default").append({ title: "From the second", completed: false }, LIMITS),
  ]);

  expect(answers.toSorted()).toEqual(["applied", "applied", "conflict"]);
  // The conflict's answer carried the winner's change: the loser asked nothing else before deciding again.
  expect(catchUps.count).toBe(0);
  expect(results.map((result) => result.outcome)).toEqual(["added", "added"]);
  const ids = results.map((result) => ("task" in result ? result.task.id : 0)).sort();
  expect(ids).toEqual([3, 4]);
  const tasks = await tasksOf(schema);
  expect(tasks.slice(0, 2)).toEqual(INITIAL_TASKS);
  expect(tasks.slice(2).map((task) => task.id)).toEqual([3, 4]);
  expect(new Set(tasks.slice(2).map((task) => task.title))).toEqual(new Set(["From the first", "From the second"]));
  // Each process reads the other's task in its copy, at the list's one version.
  const reads = await Promise.all([first.list("default").read(), second.list("default").read()]);
  expect(reads[0]?.version.version).toBe(reads[1]?.version.version);
});

test("two processes appending with one Idempotency-Key at the same change number make one task, which the other replays", async () => {
  const schema = "optimistic_keys";
  const { pool, answers } = raced();
  const [first, second] = await twoProcesses(schema, pool);
  if (first === undefined || second === undefined) throw new Error("Two processes were opened");
  const key = { scope: "", key: "raced-key", fingerprint: "same-body" };
  const task = { title: "Sent twice", completed: false };
  const results = await Promise.all([
    first.list("default").append(task, LIMITS, key),
    second.list("default").append(task, LIMITS, key),
  ]);

  expect(answers.toSorted()).toEqual(["applied", "conflict"]);
  expect(results.map((result) => result.outcome).sort()).toEqual(["added", "replayed"]);
  const [one, other] = results.map((result) => ("json" in result ? result.json : ""));
  expect(one).toBe(other);
  expect((await tasksOf(schema)).filter((held) => held.title === task.title)).toEqual([{ id: 3, ...task }]);
});

test("a schema at version 3 loses the functions that decided task and list writes in SQL, and its list is written on", async () => {
  const schema = "optimistic_migrated";
  const { pool } = raced();
  const [lists] = await twoProcesses(schema, pool);
  if (lists === undefined) throw new Error("A process was opened");
  await asOperator(url, async (sql) => {
    // What version 3 left: its functions, here with their names and arguments, and its version.
    await sql
      .unsafe(`CREATE FUNCTION "${schema}".append_task(text, integer, bigint, bigint, text, boolean, text)
        RETURNS void LANGUAGE sql AS '';
      CREATE FUNCTION "${schema}".update_task(text, bigint, text, boolean, text[], bigint, text)
        RETURNS void LANGUAGE sql AS '';
      CREATE FUNCTION "${schema}".record_change(text, bigint, integer, bigint, text, boolean, bigint)
        RETURNS void LANGUAGE sql AS '';
      CREATE FUNCTION "${schema}".put_list(text, text, jsonb, boolean, integer) RETURNS void LANGUAGE sql AS '';
      DROP TABLE "${schema}".access_keys;
      ALTER TABLE "${schema}".lists DROP COLUMN key_count;
      UPDATE "${schema}".schema_version SET version = 3`)
      .simple();
  });
  const sql = postgres(url, { max: 1, fetch_types: false, onnotice: () => {} });
  pools.push(sql);
  const reopened = new PostgresLists((work) => work(sql), schema, { pollMs: 0 });
  expect(
    (await reopened.list("default").append({ title: "After the migration", completed: false }, LIMITS)).outcome,
  ).toBe("added");
  const functions = await asOperator(url, (admin) =>
    admin.unsafe(`SELECT proname FROM pg_proc WHERE pronamespace = '${schema}'::regnamespace`),
  );
  const names = functions.map((row) => String(row.proname));
  for (const old of ["append_task", "update_task", "record_change", "put_list"]) expect(names).not.toContain(old);
  expect(names).toContain("apply_change");
});

test("two processes making lists at the same change of the directory, with room for one more: one is made, the other decided again finds the lists full", async () => {
  const schema = "optimistic_lists";
  const { pool, answers } = raced("taken AS (UPDATE");
  const [first, second] = await twoProcesses(schema, pool);
  if (first === undefined || second === undefined) throw new Error("Two processes were opened");
  const limits = { maxLists: 2, maxKeys: 10 };
  const none = { ifMatch: undefined, ifNoneMatch: true };
  const results = await Promise.all([
    first.put("first-made", "First", none, limits),
    second.put("second-made", "Second", none, limits),
  ]);

  expect(answers.toSorted()).toEqual(["0 written", "1 written"]);
  expect(results.map((result) => result.outcome).sort()).toEqual(["created", "full"]);
  const directory = await first.directory();
  expect(JSON.parse(directory.json)).toHaveLength(2);
  expect(directory.version).toBe((await second.directory()).version);
});
