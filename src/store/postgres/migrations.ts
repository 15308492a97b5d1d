// The numbered migrations of a PostgreSQL list's schema, applied at start in order, each once and
// in a transaction of its own, and the version row that says how many a schema has had.
//
// A migration is never edited once released: a change to the layout is a new one at the end, and
// the tables are written out here, not built from code elsewhere that may change. The functions are
// made from the code of this version (CREATE OR REPLACE), so a migration that changes one installs
// them all again: a schema made afresh gets the same functions as one brought up to date.
import { INITIAL_TASKS } from "../../list/task.ts";
import { applyFunction } from "./apply-sql.ts";
import { postgresTaskJson } from "./task-columns.ts";

/** The key of the advisory lock that serialises migrations: "tasklist" in ASCII. */
const SCHEMA_LOCK = "8386661138405353844";

/** What a migration's SQL is made from: the schema quoted, as named, and a new random instance. */
interface Target {
  readonly s: string;
  readonly schema: string;
  readonly instance: string;
}

/** Every function the list's writes call, as this version makes them: `apply_change` alone. */
function functions({ s }: Target): string {
  return applyFunction(s);
}

/** The migrations, in order: the first is number 1. Each is PL/pgSQL run inside a DO block. */
const MIGRATIONS: readonly ((target: Target) => string)[] = [
  // The list with its two initial tasks, change 1 and 2. A title is kept as its JSON string literal:
  // PostgreSQL text cannot hold the NUL a JSON title may carry, nor the lone surrogates, which the
  // driver would replace silently. CREATE TABLE without IF NOT EXISTS: tables of the same names made
  // for something else stop the start rather than be written to.
  (target) => {
    const { s, schema, instance } = target;
    return `
    -- CREATE SCHEMA IF NOT EXISTS needs the right to create schemas even when it exists.
    IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = '${schema}') THEN
      CREATE SCHEMA ${s};
    END IF;
    CREATE TABLE ${s}.schema_version (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      version integer NOT NULL
    );
    CREATE TABLE ${s}.tasks (
      id integer PRIMARY KEY,
      title_json text NOT NULL,
      completed boolean NOT NULL,
      created bigint NOT NULL,
      changed bigint NOT NULL
    );
    CREATE INDEX tasks_by_change ON ${s}.tasks (changed);
    -- One row: the list's random instance, which sets its ETags apart from every other list's, its
    -- count, last id given, the bytes of its JSON, its last change and the last deletion forgotten.
    CREATE TABLE ${s}.list (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      instance text NOT NULL,
      task_count integer NOT NULL,
      last_id integer NOT NULL,
      json_bytes bigint NOT NULL,
      change_number bigint NOT NULL,
      forgotten bigint NOT NULL DEFAULT 0
    );
    CREATE TABLE ${s}.deletions (change bigint PRIMARY KEY, id integer NOT NULL);
    -- Idempotency-Keys: each with the task it added, as first returned, and a hash of what it asked
    -- for, oldest first by seq, and how many each scope (write token) holds, so that its oldest past
    -- the limit are forgotten.
    CREATE TABLE ${s}.idempotency_keys (
      seq bigserial PRIMARY KEY,
      scope text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      task_id integer,
      task_json text,
      UNIQUE (scope, key)
    );
    CREATE INDEX idempotency_keys_by_scope ON ${s}.idempotency_keys (scope, seq);
    CREATE TABLE ${s}.idempotency_scopes (scope text PRIMARY KEY, keys integer NOT NULL);
    -- The latest changes, one row each, the oldest trimmed as each change comes: the task as the
    -- change left it (no title nor completed for a deletion), and the bytes of JSON of every change
    -- journaled so far through this one, so that trimming by bytes reads only the rows it drops.
    CREATE TABLE ${s}.journal (
      change bigint PRIMARY KEY,
      id integer NOT NULL,
      created bigint NOT NULL,
      title_json text,
      completed boolean,
      total bigint NOT NULL
    );
    INSERT INTO ${s}.tasks (id, title_json, completed, created, changed) VALUES ${INITIAL_TASKS.map(
      (task) => `(${task.id}, ${literal(JSON.stringify(task.title))}, ${task.completed}, ${task.id}, ${task.id})`,
    ).join(", ")};
    INSERT INTO ${s}.list (instance, task_count, last_id, json_bytes, change_number)
      SELECT '${instance}', count(*), max(id), 1 + sum(octet_length(${postgresTaskJson()}) + 1), max(changed)
      FROM ${s}.tasks;
    ${functions(target)}`;
  },
  // Every list of the deployment in one schema: each list its own row (its title, whether it lives,
  // its place in creation order, its own version and random instance, its counters), every other
  // table keyed by the list, the directory's row (its instance and change number: its ETag) and
  // POST /lists's Idempotency-Keys. The list there was becomes \`default\`, titled "Tasks", keeping
  // its instance, ids, change numbers and keys. The functions of version 1 are dropped: each write
  // now names its list.
  (target) => {
    const { s, schema, instance } = target;
    return `
    DECLARE
      old regprocedure;
    BEGIN
      FOR old IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = '${schema}'::regnamespace LOOP
        EXECUTE 'DROP FUNCTION ' || old::text;
      END LOOP;
    END;
    CREATE TABLE ${s}.lists (
      name text PRIMARY KEY,
      title_json text NOT NULL,
      live boolean NOT NULL,
      position bigint NOT NULL,
      version text NOT NULL,
      instance text NOT NULL,
      task_count integer NOT NULL,
      last_id integer NOT NULL,
      json_bytes bigint NOT NULL,
      change_number bigint NOT NULL,
      forgotten bigint NOT NULL
    );
    CREATE INDEX lists_in_order ON ${s}.lists (position) WHERE live;
    CREATE TABLE ${s}.directory (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      instance text NOT NULL,
      change bigint NOT NULL,
      live_lists integer NOT NULL
    );
    CREATE TABLE ${s}.list_keys (
      seq bigserial PRIMARY KEY,
      scope text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      list_json text NOT NULL,
      UNIQUE (scope, key)
    );
    CREATE INDEX list_keys_by_scope ON ${s}.list_keys (scope, seq);
    INSERT INTO ${s}.directory (instance, change, live_lists) VALUES ('${instance}', 0, 1);
    INSERT INTO ${s}.lists (name, title_json, live, position, version, instance, task_count, last_id, json_bytes,
        change_number, forgotten)
      SELECT 'default', '"Tasks"', true, 0, '${instance}-l0', instance, task_count, last_id, json_bytes, change_number,
        forgotten
      FROM ${s}.list;
    DROP TABLE ${s}.list;
    ALTER TABLE ${s}.tasks ADD COLUMN list text NOT NULL DEFAULT 'default';
    ALTER TABLE ${s}.tasks ALTER COLUMN list DROP DEFAULT, DROP CONSTRAINT tasks_pkey, ADD PRIMARY KEY (list, id);
    DROP INDEX ${s}.tasks_by_change;
    CREATE INDEX tasks_by_change ON ${s}.tasks (list, changed);
    ALTER TABLE ${s}.deletions ADD COLUMN list text NOT NULL DEFAULT 'default';
    ALTER TABLE ${s}.deletions ALTER COLUMN list DROP DEFAULT, DROP CONSTRAINT deletions_pkey,
      ADD PRIMARY KEY (list, change);
    ALTER TABLE ${s}.journal ADD COLUMN list text NOT NULL DEFAULT 'default';
    ALTER TABLE ${s}.journal ALTER COLUMN list DROP DEFAULT, DROP CONSTRAINT journal_pkey,
      ADD PRIMARY KEY (list, change);
    ALTER TABLE ${s}.idempotency_keys ADD COLUMN list text NOT NULL DEFAULT 'default';
    ALTER TABLE ${s}.idempotency_keys ALTER COLUMN list DROP DEFAULT,
      DROP CONSTRAINT idempotency_keys_scope_key_key, ADD UNIQUE (list, scope, key);
    DROP INDEX ${s}.idempotency_keys_by_scope;
    CREATE INDEX idempotency_keys_by_scope ON ${s}.idempotency_keys (list, scope, seq);
    ALTER TABLE ${s}.idempotency_scopes ADD COLUMN list text NOT NULL DEFAULT 'default';
    ALTER TABLE ${s}.idempotency_scopes ALTER COLUMN list DROP DEFAULT, DROP CONSTRAINT idempotency_scopes_pkey,
      ADD PRIMARY KEY (list, scope);
    ${functions(target)}`;
  },
  // A deleted list made again is a change of its own, so the last cursor its old list gave is reset.
  (target) => functions(target),
  // Task and list writes are decided in TypeScript: a task's written by one function, apply_change, a
  // list's by statements; the functions that decided them in SQL go.
  (target) => `
    DECLARE
      old regprocedure;
    BEGIN
      FOR old IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = '${target.schema}'::regnamespace
          AND p.proname IN ('append_task', 'append_keyed_task', 'update_task', 'remove_task', 'record_change',
            'list_matches', 'made_list', 'retitled_list', 'create_list', 'put_list', 'patch_list', 'remove_list') LOOP
        EXECUTE 'DROP FUNCTION ' || old::text;
      END LOOP;
    END;
    ${functions(target)}`,
  // The keys that share a list: each kept as its SHA-256, never the key itself, and its label as its
  // JSON string literal, as a title is. They go with their list (directory-sql.ts clears them). The
  // list's row counts them, so that an addition checks the bound and counts itself in one statement.
  ({ s }) => `
    ALTER TABLE ${s}.lists ADD COLUMN key_count integer NOT NULL DEFAULT 0;
    CREATE TABLE ${s}.access_keys (
      seq bigserial PRIMARY KEY,
      list text NOT NULL,
      id text NOT NULL,
      access text NOT NULL CHECK (access IN ('read', 'write')),
      label_json text NOT NULL,
      expires text,
      hash text NOT NULL,
      UNIQUE (list, id),
      UNIQUE (list, hash)
    );`,
  // The restore after a dump is one statement the operator's script runs (restore-sql.ts), not a
  // function kept in the schema: `restored()` goes, and apply_change is the schema's one function.
  (target) => `
    DROP FUNCTION IF EXISTS ${target.s}.restored();
    ${functions(target)}`,
];

/** How many migrations this version knows: a schema at this version is up to date. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Migration `number` as one statement, and so one transaction, whatever pools the connections:
 * under the advisory lock, it runs only on a schema at the version before it, so processes that
 * start at once apply it once.
 */
export function migration(schema: string, number: number, instance: string): string {
  const s = `"${schema}"`;
  const body = MIGRATIONS[number - 1]?.({ s, schema, instance });
  if (body === undefined) throw new RangeError(`No migration ${number}`);
  return `DO $migration$
DECLARE
  applied integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(${SCHEMA_LOCK});
  -- The catalog read anew, not to_regclass: its cache may not yet know of a table another process
  -- made while this one waited for the lock.
  IF EXISTS (SELECT FROM pg_tables WHERE schemaname = '${schema}' AND tablename = 'schema_version') THEN
    SELECT version INTO applied FROM ${s}.schema_version;
  END IF;
  IF applied = ${number - 1} THEN
    ${body}
    INSERT INTO ${s}.schema_version (version) VALUES (${number})
      ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version;
  END IF;
END
$migration$`;
}

/** The start's refusal of a schema holding a list made before numbered migrations. */
export function madeBeforeMigrations(schema: string): string {
  return `DATABASE_SCHEMA ${schema} holds a task list made before numbered migrations, which this version does not read: set DATABASE_SCHEMA to a new schema, or drop this one (DROP SCHEMA ${schema} CASCADE) to start the list again`;
}

/** A constant string as an SQL literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
