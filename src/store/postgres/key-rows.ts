// A list's keys in PostgreSQL: one row each in the schema's access_keys table, read, added, revoked
// and looked up by one statement at a time, so every process sees a revocation as soon as it is
// answered.
import type * as seam from "../../engine/task-store.ts";
import type { ListKey } from "../../list/list-keys.ts";
import { missingList } from "../../list/writes.ts";
import { type PostgresDatabase, PREPARED } from "./postgres-database.ts";

/** The statements, in schema `s`; each takes the list's name as `$1`. */
function keyStatements(s: string) {
  const columns = "k.id, k.access, k.label_json, k.expires, k.hash";
  return {
    /** The list's row (none: never created) and its keys, oldest first. */
    all: `SELECT l.live, ${columns} FROM ${s}.lists l LEFT JOIN ${s}.access_keys k ON k.list = l.name
WHERE l.name = $1 ORDER BY k.seq`,
    /**
     * Adds a key while the list lives and holds fewer than `$7`, counting it on the list's row in the
     * same statement: two additions from two processes follow one another on that row.
     */
    add: `WITH counted AS (
  UPDATE ${s}.lists SET key_count = key_count + 1 WHERE name = $1 AND live AND key_count < $7 RETURNING name
), added AS (
  INSERT INTO ${s}.access_keys (list, id, access, label_json, expires, hash) SELECT $1, $2, $3, $4, $5, $6 FROM counted
)
SELECT count(*)::int AS added FROM counted`,
    /** Whether a list that took no key lives: if so, it is full. */
    live: `SELECT live FROM ${s}.lists WHERE name = $1`,
    /**
     * Removes key `$2` while the list lives, telling every process on channel `$3` at commit; the
     * list's row says which answer is due otherwise.
     */
    remove: `WITH removed AS (
  DELETE FROM ${s}.access_keys k USING ${s}.lists l WHERE k.list = $1 AND k.id = $2 AND l.name = $1 AND l.live
  RETURNING k.id
), counted AS (
  UPDATE ${s}.lists SET key_count = key_count - 1 WHERE name = $1 AND EXISTS (SELECT FROM removed)
), told AS (SELECT pg_notify($3, $1 || ' ${KEYS_CHANGED}') FROM removed)
SELECT l.live, (SELECT count(*) FROM removed)::int AS removed, (SELECT count(*) FROM told) AS told
FROM ${s}.lists l WHERE l.name = $1`,
    /** The key of hash `$2`, while its list lives. */
    byHash: `SELECT ${columns} FROM ${s}.access_keys k JOIN ${s}.lists l ON l.name = k.list AND l.live
WHERE k.list = $1 AND k.hash = $2`,
  };
}

/** What follows a list's name in a notification that its keys changed; a task write's is a number. */
export const KEYS_CHANGED = "keys";

/**
 * The keys of list `name`, in the schema `db` reaches; with `onChange`, where this process hears of
 * every process's revocations (LISTEN).
 */
export function postgresKeyRows(
  db: PostgresDatabase,
  name: string,
  onChange?: (listener: () => void) => () => void,
): seam.KeyRows {
  const sql = keyStatements(`"${db.schema}"`);
  const missing = (live: unknown): seam.ListMissing => missingList(live === false ? "gone" : "not-found");
  return {
    all: () =>
      db.run("read", async (client) => {
        const rows = await client.unsafe(sql.all, [name], PREPARED);
        if (rows[0]?.live !== true) return missing(rows[0]?.live);
        return rows.filter((row) => row.id !== null).map(keyOf);
      }),
    add: (row, max) =>
      db.run("write", async (client) => {
        const parameters = [name, row.id, row.access, JSON.stringify(row.label), row.expires, row.hash, max];
        const [counted] = await client.unsafe(sql.add, parameters, PREPARED);
        if (Number(counted?.added) > 0) return { outcome: "added" } as const;
        const [list] = await client.unsafe(sql.live, [name], PREPARED);
        return list?.live === true ? ({ outcome: "full" } as const) : missing(list?.live);
      }),
    remove: (id) =>
      db.run("write", async (client) => {
        const [list] = await client.unsafe(sql.remove, [name, id, db.schema], PREPARED);
        if (list?.live !== true) return missing(list?.live);
        return { outcome: Number(list.removed) > 0 ? "removed" : "not-found" } as const;
      }),
    byHash: (hash) =>
      db.run("read", async (client) => {
        const [row] = await client.unsafe(sql.byHash, [name, hash], PREPARED);
        return row === undefined ? undefined : keyOf(row);
      }),
    ...(onChange === undefined ? {} : { onChange }),
  };
}

function keyOf(row: Record<string, unknown>): ListKey {
  return {
    id: String(row.id),
    access: row.access === "write" ? "write" : "read",
    label: JSON.parse(String(row.label_json)) as string,
    expires: row.expires === null ? null : String(row.expires),
    hash: String(row.hash),
  };
}
