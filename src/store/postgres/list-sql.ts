// The SQL of a list in a PostgreSQL schema: its tables, made or brought up to date in one
// statement, the catch-up query and the statements and functions that write it.
import { INITIAL_TASKS } from "../../list/task.ts";
import { postgresTaskJson } from "../../list/task-sql.ts";
import type { ListChanges } from "../mirror.ts";
import { changeUpgrades, editStatements, ROW_JSON } from "./edit-sql.ts";
import { installFunction } from "./install-function.ts";
import { journalReply, journalUpgrades, recordChange } from "./journal-sql.ts";
import { restoredFunction } from "./restore-sql.ts";

/** The key of the advisory lock that serialises creating lists: "tasklist" in ASCII. */
const SCHEMA_LOCK = "8386661138405353844";

/** The SQL of one list, in the schema it lives in. */
export interface Statements {
  readonly initialise: (instance: string) => string;
  readonly changes: string;
  readonly append: string;
  readonly appendKeyed: string;
  readonly state: string;
  readonly update: string;
  readonly remove: string;
  /** Starts the list on a new history, after a restore (restore-sql.ts); its row's `said` is what to tell the operator. */
  readonly restored: string;
}

/** A task's JSON as the list shows it, built from a row of the tasks table. */
const TASK_JSON = postgresTaskJson();

export function statements(schema: string): Statements {
  const s = `"${schema}"`;
  // The list's row is always found by its key: every append leaves a dead version of it, and a
  // scan would read them all until vacuum comes. Bytes a task adds to the list's JSON: its JSON,
  // the id's digits counted here, and a comma before every task but the first.
  const added = "$1 + length((last_id + 1)::text) + (task_count > 0)::integer";
  // The state's columns in a row of the catch-up query that carries a change.
  const stateless = "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";
  return {
    // One statement, so it is one transaction however the driver and Hyperdrive pool connections.
    // The advisory lock keeps processes that start at once from racing to create the same tables.
    // A title is kept as its JSON string literal: PostgreSQL text cannot hold the NUL a JSON title
    // may carry, nor the lone surrogates, which the driver would replace silently.
    initialise: (instance) => `DO $init$
BEGIN
  PERFORM pg_advisory_xact_lock(${SCHEMA_LOCK});
  -- CREATE SCHEMA IF NOT EXISTS needs the right to create schemas even when it exists.
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = '${schema}') THEN
    CREATE SCHEMA ${s};
  END IF;
  CREATE TABLE IF NOT EXISTS ${s}.tasks (
    id integer PRIMARY KEY,
    title_json text NOT NULL,
    completed boolean NOT NULL
  );
  -- One row: the list's random instance, which sets its ETags apart from every other list's, its
  -- count, last id and the bytes of its JSON, so that an append checks both limits on this row.
  CREATE TABLE IF NOT EXISTS ${s}.list (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    instance text NOT NULL,
    task_count integer NOT NULL,
    last_id integer NOT NULL,
    json_bytes bigint NOT NULL
  );
  -- Tables of the same names made for something else fail here rather than be written to.
  PERFORM id, title_json, completed FROM ${s}.tasks LIMIT 0;
  PERFORM instance, task_count, last_id, json_bytes FROM ${s}.list LIMIT 0;
  IF NOT EXISTS (SELECT FROM ${s}.list) THEN
    IF NOT EXISTS (SELECT FROM ${s}.tasks) THEN
      INSERT INTO ${s}.tasks (id, title_json, completed) VALUES ${INITIAL_TASKS.map(
        (task) => `(${task.id}, ${literal(JSON.stringify(task.title))}, ${task.completed})`,
      ).join(", ")};
    END IF;
    INSERT INTO ${s}.list (instance, task_count, last_id, json_bytes)
    SELECT '${instance}', count(*), COALESCE(max(id), 0), 2 + COALESCE(sum(octet_length(${TASK_JSON}) + 1) - 1, 0)
    FROM ${s}.tasks;
  END IF;
  -- Idempotency-Keys: each with the task it added, as first returned, and a hash of what it asked
  -- for, oldest first by seq, and how many each scope (write token) holds, so that its oldest past
  -- the limit are forgotten.
  CREATE TABLE IF NOT EXISTS ${s}.idempotency_keys (
    seq bigserial PRIMARY KEY,
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    task_id integer,
    UNIQUE (scope, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_by_scope ON ${s}.idempotency_keys (scope, seq);
  CREATE TABLE IF NOT EXISTS ${s}.idempotency_scopes (
    scope text PRIMARY KEY,
    keys integer NOT NULL
  );
  INSERT INTO ${s}.idempotency_scopes (scope, keys)
    SELECT scope, count(*) FROM ${s}.idempotency_keys GROUP BY scope ON CONFLICT DO NOTHING;
  ${journalUpgrades(s, schema)}
  ${changeUpgrades(s, schema)}
  ${installFunction(schema, APPEND_KEYED, appendKeyedFunction(s))}
  ${installFunction(schema, "restored", restoredFunction(s, schema))}
END
$init$`,
    // One statement, so the counters are of the same moment as the tasks: its first row is the
    // list's state, each row after it one change (\`row_change\` set), in change order. A reader
    // whose change cannot be brought up to date (another list, a change past the list's or older
    // than the deletions it remembers) gets everything from 0. One the journal holds every change
    // since gets them all; any other each task's last change. The window keeps the changes whose
    // JSON starts before the chunk's byte limit: at least one, so a reader always moves on;
    // \`through\` is the last change the reply covers.
    changes: `WITH state AS (
  SELECT instance, task_count, json_bytes, change_number, last_id, forgotten,
    CASE WHEN instance = $1 AND $2::bigint <= change_number AND ($2::bigint = 0 OR $2::bigint >= forgotten)
      THEN $2::bigint ELSE 0 END AS after
  FROM ${s}.list WHERE singleton
), ${journalReply(s)}, next AS (
  SELECT id, created, changed, ${TASK_JSON} AS json FROM ${s}.tasks
  WHERE changed > (SELECT after FROM state) AND NOT (SELECT journal FROM mode) ORDER BY changed LIMIT $4
), chunk AS (
  SELECT *, sum(octet_length(json) + 1) OVER (ORDER BY changed) - octet_length(json) - 1 AS before FROM next
), kept AS (
  SELECT * FROM chunk WHERE before < $3
), bound AS (
  SELECT CASE WHEN (SELECT count(*) FROM kept) < (SELECT count(*) FROM next) OR (SELECT count(*) FROM next) >= $4
    THEN (SELECT max(changed) FROM kept) ELSE (SELECT change_number FROM state) END AS through
), reply AS (
  SELECT mode.journal, CASE WHEN mode.journal THEN logged_reply.through ELSE bound.through END AS through
  FROM mode, logged_reply, bound
)
SELECT state.instance, state.task_count, state.json_bytes::float8 AS json_bytes, state.change_number::float8 AS change,
  state.last_id, state.forgotten::float8 AS forgotten, state.after::float8 AS after, reply.journal,
  reply.through::float8 AS through, NULL::integer AS id, NULL::float8 AS row_change, NULL::float8 AS created,
  NULL::text AS json
FROM state, reply
UNION ALL
SELECT ${stateless}, id, change::float8, created::float8, json FROM logged_kept WHERE (SELECT journal FROM reply)
UNION ALL
SELECT ${stateless}, id, changed::float8, created::float8, json FROM kept
UNION ALL
SELECT ${stateless}, d.id, d.change::float8, 0, NULL FROM ${s}.deletions d, state, reply
WHERE NOT reply.journal AND d.change > state.after AND d.change <= reply.through
ORDER BY row_change NULLS FIRST`,
    append: `WITH added AS (
  UPDATE ${s}.list SET task_count = task_count + 1, last_id = last_id + 1, json_bytes = json_bytes + ${added},
    change_number = change_number + 1
  WHERE singleton AND task_count < $2::bigint AND json_bytes + ${added} <= $3::bigint
  RETURNING last_id, task_count, json_bytes, change_number
), task AS (
  INSERT INTO ${s}.tasks (id, title_json, completed, created, changed)
  SELECT last_id, $4, $5, change_number, change_number FROM added RETURNING id
), journaled AS (
  SELECT ${recordChange(s, "change_number, last_id, change_number, $4, $5, $1 + length(last_id::text)")} FROM added
), told AS (
  -- Delivered at commit to every process listening on the list's channel.
  SELECT pg_notify($6, id::text) FROM task
)
SELECT task.id, added.task_count, added.json_bytes::float8 AS json_bytes FROM task, added, journaled, told`,
    appendKeyed: `SELECT * FROM ${s}.${APPEND_KEYED}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    state: `SELECT task_count, last_id, json_bytes::float8 AS json_bytes FROM ${s}.list WHERE singleton`,
    restored: `SELECT ${s}.restored() AS said`,
    ...editStatements(s),
  };
}

/** The name of the function that appends a task with an Idempotency-Key; a new version gets a new name. */
const APPEND_KEYED = "append_keyed_v4";

/**
 * The function that appends a task with an Idempotency-Key, in one statement and so in one
 * transaction: the key is claimed first, so a second request with it waits on the unique index
 * until the first commits, then returns the first's task; a key that added nothing (the
 * list full) is forgotten in the same transaction, so a failure remembers nothing. A new key
 * forgets the oldest of its own scope past the limit, never another scope's.
 */
function appendKeyedFunction(s: string): string {
  const added = "rest + length((l.last_id + 1)::text) + (l.task_count > 0)::integer";
  return `CREATE FUNCTION ${s}.${APPEND_KEYED}(
      rest integer, max_tasks bigint, max_bytes bigint, new_title_json text, new_completed boolean,
      channel text, key_scope text, key_value text, key_fingerprint text, max_keys integer
    )
    RETURNS TABLE (outcome text, id integer, task_count integer, json_bytes float8, last_id integer,
      task_json text, completed boolean)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      claimed boolean;
      known record;
      appended record;
      kept integer;
    BEGIN
      INSERT INTO ${s}.idempotency_keys (scope, key, fingerprint) VALUES (key_scope, key_value, key_fingerprint)
        ON CONFLICT (scope, key) DO NOTHING;
      claimed := FOUND;
      IF NOT claimed THEN
        SELECT k.fingerprint, k.task_id, k.task_json INTO known FROM ${s}.idempotency_keys k
          WHERE k.scope = key_scope AND k.key = key_value;
        IF known.fingerprint <> key_fingerprint THEN
          RETURN QUERY SELECT 'key-reused'::text, NULL::integer, l.task_count, l.json_bytes::float8, l.last_id,
            NULL::text, NULL::boolean FROM ${s}.list l WHERE l.singleton;
          RETURN;
        END IF;
        -- The task as first returned, even when it was edited or deleted since.
        IF known.task_json IS NOT NULL THEN
          RETURN QUERY SELECT 'replayed'::text, known.task_id, l.task_count, l.json_bytes::float8, l.last_id,
            known.task_json, NULL::boolean FROM ${s}.list l WHERE l.singleton;
          RETURN;
        END IF;
        RETURN QUERY SELECT 'replayed'::text, t.id, l.task_count, l.json_bytes::float8, l.last_id,
          ${ROW_JSON}, NULL::boolean
          FROM ${s}.tasks t, ${s}.list l WHERE t.id = known.task_id AND l.singleton;
        -- A task changed away by hand takes its key's meaning with it: the request is new again.
        IF FOUND THEN RETURN; END IF;
      END IF;
      UPDATE ${s}.list l SET task_count = l.task_count + 1, last_id = l.last_id + 1,
          json_bytes = l.json_bytes + ${added}, change_number = l.change_number + 1
        WHERE l.singleton AND l.task_count < max_tasks AND l.json_bytes + ${added} <= max_bytes
        RETURNING l.last_id AS new_id, l.task_count AS count, l.json_bytes AS bytes, l.change_number AS change
        INTO appended;
      IF NOT FOUND THEN
        IF claimed THEN
          DELETE FROM ${s}.idempotency_keys k WHERE k.scope = key_scope AND k.key = key_value;
        END IF;
        RETURN QUERY SELECT 'full'::text, NULL::integer, l.task_count, l.json_bytes::float8, l.last_id,
          NULL::text, NULL::boolean FROM ${s}.list l WHERE l.singleton;
        RETURN;
      END IF;
      INSERT INTO ${s}.tasks (id, title_json, completed, created, changed)
        VALUES (appended.new_id, new_title_json, new_completed, appended.change, appended.change);
      UPDATE ${s}.idempotency_keys k SET task_id = appended.new_id, fingerprint = key_fingerprint,
          task_json = ${postgresTaskJson({ id: "appended.new_id", titleJson: "new_title_json", completed: "new_completed" })}
        WHERE k.scope = key_scope AND k.key = key_value;
      PERFORM ${recordChange(s, "appended.change, appended.new_id, appended.change, new_title_json, new_completed, rest + length(appended.new_id::text)")};
      PERFORM pg_notify(channel, appended.new_id::text);
      IF claimed THEN
        INSERT INTO ${s}.idempotency_scopes AS c (scope, keys) VALUES (key_scope, 1)
          ON CONFLICT (scope) DO UPDATE SET keys = c.keys + 1 RETURNING c.keys INTO kept;
        IF kept > max_keys THEN
          DELETE FROM ${s}.idempotency_keys k WHERE k.seq IN (
            SELECT o.seq FROM ${s}.idempotency_keys o WHERE o.scope = key_scope AND o.task_id IS NOT NULL
              ORDER BY o.seq LIMIT kept - max_keys
          );
          UPDATE ${s}.idempotency_scopes c SET keys = max_keys WHERE c.scope = key_scope;
        END IF;
      END IF;
      RETURN QUERY SELECT 'added'::text, appended.new_id, appended.count, appended.bytes::float8, appended.new_id,
        NULL::text, NULL::boolean;
    END
    $fn$;`;
}

/** A constant string as an SQL literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The reply to a reader's question, from the rows of {@link Statements.changes}: the list's state, then each change. */
export function changesOf([state, ...changed]: readonly Record<string, unknown>[]): ListChanges {
  return {
    instance: String(state?.instance),
    change: Number(state?.change),
    highestId: Number(state?.last_id),
    forgotten: Number(state?.forgotten),
    after: Number(state?.after),
    through: Number(state?.through),
    journal: state?.journal === true,
    rows: changed.map(({ id, row_change, created, json }) =>
      typeof json === "string"
        ? { id: Number(id), change: Number(row_change), created: Number(created), json }
        : { id: Number(id), change: Number(row_change), created: 0 },
    ),
  };
}
