// A Durable Object's SQL storage as the SQLite connection the list's layout is written through,
// shared by the list objects and the directory object, what a list's object reads of it first, the
// one row a deleted list's object keeps in place of the layout, and a write's failure as a value.
import type { Continuation, DeletedList } from "../../list/list-directory.ts";
import type { StorageFailed } from "../../store/durable-object/stored.ts";
import type { SqliteConnection } from "../../store/sqlite/sqlite-connection.ts";
import type { SqliteList } from "../../store/sqlite/sqlite-list.ts";

/** The table of a deleted list's object, holding its one row: with it the object's list is gone. */
const DELETED = "deleted_list";

/** The object's storage as a {@link SqliteConnection}: its SQL API is synchronous, and so are its transactions. */
export function storageConnection(storage: DurableObjectStorage): SqliteConnection {
  return {
    query: (sql, ...params) => storage.sql.exec(sql, ...params).toArray(),
    iterate: (sql, ...params) => storage.sql.exec(sql, ...params),
    transaction: (work) => storage.transactionSync(work),
  };
}

/**
 * Whether the object's SQLite holds none of the list's tables, of this release (`schema_version`) or
 * of an older one (`list`, `lists`): its list was never created, or was deleted and only where it
 * stopped is kept. The platform keeps tables of its own there, which say nothing of the list.
 */
export function isEmpty(db: SqliteConnection): boolean {
  const ours = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN ('schema_version', 'list', 'lists')";
  return db.query(ours).length === 0;
}

/** The name of an object that does not know its own: the one list its storage holds. */
export function onlyList(db: SqliteConnection): string {
  const deleted = deletedList(db);
  if (deleted !== undefined) return deleted.name;
  const rows = isEmpty(db) ? [] : db.query("SELECT name FROM lists");
  if (rows.length !== 1) throw new Error("A list's Durable Object must be reached by its list's name");
  return String(rows[0]?.name);
}

/** The row a deleted list's object keeps, or undefined while its list lives or was never created. */
function deletedList(db: SqliteConnection): DeletedList | undefined {
  if (db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", DELETED).length === 0) return undefined;
  const row = db.query(`SELECT name, highest_id, change FROM ${DELETED}`)[0];
  if (row === undefined) return undefined;
  return { name: String(row.name), highestId: Number(row.highest_id), change: Number(row.change) };
}

/** Where `list`'s ids and change numbers stopped: its row, or the row kept once it was deleted; undefined if never created. */
export function stoppedAt(db: SqliteConnection, list: SqliteList): Continuation | undefined {
  return deletedList(db) ?? (isEmpty(db) ? undefined : list.row());
}

/**
 * Drops every table of the layout, with their rows and indexes, keeping one row of where `list`
 * stopped in their place: a deleted list's object stores next to nothing, however many names are
 * made and deleted. One transaction, so a reset half-way leaves the list as it was, never without
 * where its ids and change numbers stopped.
 */
export function freeStorage(db: SqliteConnection, list: SqliteList): void {
  db.transaction(() => {
    const stopped = stoppedAt(db, list);
    if (stopped === undefined) throw new Error("A list that was never created cannot be deleted");
    db.query(
      `CREATE TABLE IF NOT EXISTS ${DELETED} (name TEXT NOT NULL, highest_id INTEGER NOT NULL, change INTEGER NOT NULL)`,
    );
    db.query(`DELETE FROM ${DELETED}`);
    db.query(
      `INSERT INTO ${DELETED} (name, highest_id, change) VALUES (?, ?, ?)`,
      list.name,
      stopped.highestId,
      stopped.change,
    );
    // Every table but SQLite's own and the platform's (`_cf_…`), which say nothing of the list.
    const tables = db.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> ? AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'",
      DELETED,
    );
    for (const table of tables) db.query(`DROP TABLE "${String(table.name)}"`);
  });
}

/** Drops a deleted list's row, as its name is made again. Runs in the caller's transaction. */
export function forgetDeleted(db: SqliteConnection): void {
  db.query(`DROP TABLE IF EXISTS ${DELETED}`);
}

/** Runs `write` against the object's storage, answering its failure as a {@link StorageFailed}. */
export function stored<T>(write: () => T): T | StorageFailed {
  try {
    return write();
  } catch (error) {
    return { outcome: "storage-failed", message: String(error) };
  }
}
