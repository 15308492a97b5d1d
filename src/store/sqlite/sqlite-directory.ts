// The directory of lists as rows of a SQLite database: the lists in creation order, the names
// deleted with where they stopped, the POST keys, and the directory's own change number.
import type { DirectoryState, ListResult, RememberedListKey } from "../../list/list-directory.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import { SqliteList } from "./sqlite-list.ts";

const LISTS =
  "SELECT name, title, version, live, change_number, highest_id FROM lists ORDER BY live DESC, position, name";

/** The directory of a database that {@link openSqliteDatabase} opened. */
export class SqliteDirectory {
  readonly #db: SqliteConnection;

  constructor(db: SqliteConnection) {
    this.#db = db;
  }

  /** The directory as its rows hold it, for a `ListDirectory`. */
  state(): DirectoryState {
    const db = this.#db;
    const row = db.query("SELECT instance, change FROM directory")[0] ?? {};
    const rows = db.query(LISTS);
    const keys: RememberedListKey[] = db
      .query("SELECT scope, key, fingerprint, json FROM list_keys ORDER BY seq")
      .map((key) => ({
        scope: String(key.scope),
        key: String(key.key),
        fingerprint: String(key.fingerprint),
        json: String(key.json),
      }));
    return {
      instance: String(row.instance),
      change: Number(row.change ?? 0),
      lists: rows
        .filter((list) => list.live === 1)
        .map((list) => ({ name: String(list.name), title: String(list.title), version: String(list.version) })),
      deleted: rows
        .filter((list) => list.live !== 1)
        .map((list) => ({
          name: String(list.name),
          highestId: Number(list.highest_id),
          change: Number(list.change_number),
        })),
      keys,
    };
  }

  /**
   * Writes what a directory decision changed, in the caller's transaction: the list's row (its
   * tasks too, for a deletion), the directory's change number, and a POST's key, of whose scope
   * only the newest `maxKeys` stay.
   */
  persist(result: ListResult, maxKeys: number): void {
    const db = this.#db;
    if (result.outcome === "created") {
      const position = Number(db.query("SELECT COALESCE(MAX(position), -1) + 1 AS next FROM lists")[0]?.next ?? 0);
      new SqliteList(db, result.list.name).create(result.list, position, result.resume);
      const key = result.key;
      if (key !== undefined) {
        db.query(
          "INSERT OR REPLACE INTO list_keys (scope, key, fingerprint, json) VALUES (?, ?, ?, ?)",
          key.scope,
          key.key,
          key.fingerprint,
          key.json,
        );
        db.query(
          "DELETE FROM list_keys WHERE scope = ? AND seq NOT IN (SELECT seq FROM list_keys WHERE scope = ? ORDER BY seq DESC LIMIT ?)",
          key.scope,
          key.scope,
          maxKeys,
        );
      }
    } else if (result.outcome === "retitled") {
      new SqliteList(db, result.list.name).retitle(result.list);
    } else if (result.outcome === "deleted") {
      new SqliteList(db, result.name).delete();
    } else {
      return;
    }
    db.query("UPDATE directory SET change = change + 1");
  }
}
