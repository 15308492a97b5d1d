// The statements a process runs on the lists in a PostgreSQL schema: the catch-up query, the call
// that writes a task change, the version read at start (the layout is in migrations.ts) and the restore.
import type { ChangedRow, ListChanges } from "../../engine/mirror.ts";
import { journalReply } from "./journal-sql.ts";
import { restoreStatement } from "./restore-sql.ts";
import { postgresTaskJson } from "./task-columns.ts";

/** The SQL of the lists, in the schema they live in: each statement on a list takes its name. */
export interface Statements {
  /** The schema's version row; fails with 42P01 when there is none. */
  readonly version: string;
  /** Whether the schema holds a `list` table (version 1) or `lists` (since 2), and a `schema_version` table, read from one snapshot of the catalog. */
  readonly listed: string;
  /** The catch-up query; no row when the list is not live. */
  readonly changes: string;
  /** Whether a list that the catch-up did not find was deleted (a row, not live) or never created (no row). */
  readonly state: string;
  /** The list's life, title and own version, without its tasks; no row when it was never created. */
  readonly listState: string;
  /** Writes a task change decided at a change number (apply-sql.ts): `$1` to `$17` as `applyParameters` makes them. */
  readonly apply: string;
  /** An Idempotency-Key (`$1` list, `$2` scope, `$3` key) with its scope's count (stored-keys.ts). */
  readonly key: string;
  /** The oldest `$3` keys of scope `$2` of list `$1`. */
  readonly oldestKeys: string;
  /** Starts every list on a new history, after a restore (restore-sql.ts); its row's `restored` is false when it must be run again. */
  readonly restored: string;
}

/** A task's JSON as the list shows it, built from a row of the tasks table. */
const TASK_JSON = postgresTaskJson();

export function statements(schema: string): Statements {
  const s = `"${schema}"`;
  // The state's columns in a row of the catch-up query that carries a change.
  const stateless = "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";
  // The list's row is always found by its key: every write leaves a dead version of it, and a
  // scan would read them all until vacuum comes.
  return {
    version: `SELECT version FROM ${s}.schema_version`,
    listed: `SELECT bool_or(tablename IN ('list', 'lists')) IS TRUE AS listed, bool_or(tablename = 'schema_version') IS TRUE
  AS versioned FROM pg_tables WHERE schemaname = '${schema}'`,
    // One statement, so the counters are of the same moment as the tasks: its first row is the
    // list's state, each row after it one change (\`row_change\` set), in change order. A reader
    // whose change cannot be brought up to date (another list, a change past the list's or older
    // than the deletions it remembers) gets everything from 0. One the journal holds every change
    // since (change 0 of the same list too: \`followed\`) gets them all; any other each task's last
    // change. The window keeps the changes whose JSON starts before the chunk's byte limit: at least
    // one, so a reader always moves on; \`through\` is the last change the reply covers. The first
    // row also carries the list's title and own version; a list that is not live gives no row at all.
    changes: `WITH state AS (
  SELECT *, CASE WHEN followed THEN $2::bigint ELSE 0 END AS after FROM (
    SELECT instance, task_count, json_bytes, change_number, last_id, forgotten, title_json, version,
      instance = $1 AND $2::bigint <= change_number AND ($2::bigint = 0 OR $2::bigint >= forgotten) AS followed
    FROM ${s}.lists WHERE name = $5 AND live
  ) list
), ${journalReply(s)}, next AS (
  SELECT id, created, changed, ${TASK_JSON} AS json FROM ${s}.tasks
  WHERE list = $5 AND changed > (SELECT after FROM state) AND NOT (SELECT journal FROM mode) ORDER BY changed LIMIT $4
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
  reply.through::float8 AS through, state.title_json, state.version, NULL::integer AS id, NULL::float8 AS row_change, NULL::float8 AS created,
  NULL::text AS json
FROM state, reply
UNION ALL
SELECT ${stateless}, id, change::float8, created::float8, json FROM logged_kept WHERE (SELECT journal FROM reply)
UNION ALL
SELECT ${stateless}, id, changed::float8, created::float8, json FROM kept
UNION ALL
SELECT ${stateless}, d.id, d.change::float8, 0, NULL FROM ${s}.deletions d, state, reply
WHERE d.list = $5 AND NOT reply.journal AND d.change > state.after AND d.change <= reply.through
ORDER BY row_change NULLS FIRST`,
    state: `SELECT live FROM ${s}.lists WHERE name = $1`,
    listState: `SELECT live, title_json, version FROM ${s}.lists WHERE name = $1`,
    apply: `SELECT outcome, list_instance, list_change, list_last_id, list_forgotten, covered, row_id AS id, row_change,
  row_created AS created, row_json AS json
FROM ${s}.apply_change($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    key: `SELECT k.fingerprint, k.task_id, k.task_json,
  (SELECT c.keys FROM ${s}.idempotency_scopes c WHERE c.list = $1 AND c.scope = $2) AS kept
FROM (VALUES (1)) one LEFT JOIN ${s}.idempotency_keys k ON k.list = $1 AND k.scope = $2 AND k.key = $3`,
    oldestKeys: `SELECT key FROM ${s}.idempotency_keys WHERE list = $1 AND scope = $2 ORDER BY seq LIMIT $3`,
    restored: restoreStatement(s, schema),
  };
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
    rows: changed.map(changedRow),
  };
}

/** One change from a row carrying it (`id`, `row_change`, `created`, `json`): the task as it left it, or its deletion. */
export function changedRow({ id, row_change, created, json }: Record<string, unknown>): ChangedRow {
  return typeof json === "string"
    ? { id: Number(id), change: Number(row_change), created: Number(created), json }
    : { id: Number(id), change: Number(row_change), created: 0 };
}
