// The statements of the directory of lists in PostgreSQL: the directory as list-directory.ts decides
// from it, and the rows each decision writes, each write only while the directory is still at the
// change it was decided against.

/** The statements, in schema `s`. Each write's first parameter is the directory's change decided against. */
export interface DirectoryStatements {
  /** `GET /lists`: the directory's version and its JSON, the live lists in creation order. */
  readonly directory: string;
  /** The directory's instance and change number. */
  readonly head: string;
  /** Every list ever made, live or not, in creation order. */
  readonly lists: string;
  /** The POST keys, oldest first. */
  readonly keys: string;
  /**
   * A list made: `$2` name, `$3` title's JSON, `$4` version, `$5` instance, `$6` and `$7` the highest id
   * and change number it starts after, `$8` to `$11` a POST's key (scope, key, fingerprint, the list's
   * JSON; NULL for none), `$12` the keys a scope keeps. What a deleted name's list left is cleared first.
   */
  readonly created: string;
  /** A list retitled: `$2` name, `$3` title's JSON, `$4` version. */
  readonly retitled: string;
  /** A list deleted: `$2` name, `$3` the channel told. Its rows go after, by {@link DirectoryStatements.cleared}. */
  readonly deleted: string;
  /** The tasks, tombstones, journal, Idempotency-Keys and list keys of list `$1`, once it is not live. */
  readonly cleared: string;
}

/** A list's rows in the tables keyed by list, removed in the statement of `guard` (a condition). */
function clearing(s: string, name: string, guard: string): string {
  return ["tasks", "deletions", "journal", "idempotency_keys", "idempotency_scopes", "access_keys"]
    .map((table) => `cleared_${table} AS (DELETE FROM ${s}.${table} WHERE list = ${name} AND ${guard})`)
    .join(",\n");
}

export function directoryStatements(s: string): DirectoryStatements {
  // Each write first takes the directory's row, only at the change decided against: list writes
  // follow one another, and one decided against an older directory writes nothing.
  const taken = (sets: string) =>
    `taken AS (UPDATE ${s}.directory SET change = change + 1${sets} WHERE singleton AND change = $1 RETURNING change)`;
  return {
    directory: `SELECT d.instance || '-d' || d.change AS version,
  '[' || COALESCE((SELECT string_agg('{"name":"' || l.name || '","title":' || l.title_json || '}', ',' ORDER BY l.position)
    FROM ${s}.lists l WHERE l.live), '') || ']' AS json
FROM ${s}.directory d WHERE d.singleton`,
    head: `SELECT instance, change::float8 AS change FROM ${s}.directory WHERE singleton`,
    lists: `SELECT name, title_json, live, version, last_id, change_number::float8 AS change_number FROM ${s}.lists
ORDER BY position, name`,
    keys: `SELECT scope, key, fingerprint, list_json FROM ${s}.list_keys ORDER BY seq`,
    // A deleted name's rows were cleared at its deletion, unless its process stopped between: no
    // task write reaches a list that is not live, so they are cleared here in the same statement.
    created: `WITH ${taken(", live_lists = live_lists + 1")},
${clearing(s, "$2", "EXISTS (SELECT FROM taken)")},
made AS (
  INSERT INTO ${s}.lists AS l (name, title_json, live, position, version, instance, task_count, last_id, json_bytes,
      change_number, forgotten)
    SELECT $2, $3, true, taken.change, $4, $5, 0, $6, 2, $7, $7 FROM taken
    ON CONFLICT (name) DO UPDATE SET title_json = EXCLUDED.title_json, live = true, position = EXCLUDED.position,
      version = EXCLUDED.version, instance = EXCLUDED.instance, task_count = 0, last_id = EXCLUDED.last_id,
      json_bytes = 2, change_number = EXCLUDED.change_number, forgotten = EXCLUDED.forgotten, key_count = 0
    RETURNING name
), keyed AS (
  INSERT INTO ${s}.list_keys (scope, key, fingerprint, list_json) SELECT $8, $9, $10, $11 FROM taken
    WHERE $9::text IS NOT NULL
), trimmed AS (
  -- The scope's newest keys stay, the one made here among them: the statement sees the keys before it.
  DELETE FROM ${s}.list_keys k WHERE $9::text IS NOT NULL AND EXISTS (SELECT FROM taken) AND k.seq IN (
    SELECT o.seq FROM ${s}.list_keys o WHERE o.scope = $8 ORDER BY o.seq DESC OFFSET $12::integer - 1
  )
)
SELECT name FROM made`,
    retitled: `WITH ${taken("")}
UPDATE ${s}.lists SET title_json = $3, version = $4 FROM taken WHERE name = $2 RETURNING name`,
    // Waits on a task write holding the list's row; once it commits the list is not live, so no task
    // write to it commits after, and its readers, told, read it gone.
    deleted: `WITH ${taken(", live_lists = live_lists - 1")},
gone AS (UPDATE ${s}.lists SET live = false, task_count = 0, json_bytes = 2, key_count = 0 FROM taken WHERE name = $2
  RETURNING name)
SELECT name, pg_notify($3, name) FROM gone`,
    cleared: `WITH ${clearing(s, "$1", `EXISTS (SELECT FROM ${s}.lists WHERE name = $1 AND NOT live)`)}
SELECT 1`,
  };
}
