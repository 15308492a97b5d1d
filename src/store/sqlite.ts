import { EncodedList } from "./encoded-list.ts";
import { type SqliteConnection, SqliteList } from "./sqlite-list.ts";
import {
  type AppendResult,
  isKnown,
  type ListLimits,
  type ListRead,
  type ListUsage,
  type NewTask,
  type TaskStore,
} from "./store.ts";

/** A connection to a database file, which a Node, Bun or Deno server opens and may close. */
export interface SqliteFileConnection extends SqliteConnection {
  close(): void;
}

/**
 * Pragmas for a database file that one process alone writes. EXCLUSIVE locking holds the file from
 * the first access until the process ends, so a second server on the same file fails at start
 * rather than letting two cached lists drift apart; WAL makes an append one write to the log.
 */
export const WRITER_PRAGMAS = ["PRAGMA locking_mode = EXCLUSIVE", "PRAGMA journal_mode = WAL"];

/**
 * The list in a SQLite database file. It must be the database's only writer: reads are served from
 * an {@link EncodedList} that follows each committed append, so a read never touches the database.
 */
export class SqliteStore implements TaskStore {
  readonly #list: SqliteList;
  readonly #encoded: EncodedList;

  /** Opens the list in `db`, creating it if the database holds none, and loads it. */
  constructor(db: SqliteConnection) {
    this.#list = new SqliteList(db);
    this.#encoded = new EncodedList(this.#list.tasks());
  }

  get usage(): ListUsage {
    return this.#list.usage;
  }

  read(known: readonly string[]): ListRead {
    const version = this.#list.version;
    return isKnown(version, known) ? { version } : { version, body: this.#encoded.body() };
  }

  async append(task: NewTask, limits: ListLimits): Promise<AppendResult> {
    const appended = this.#list.append(task, limits);
    if ("full" in appended) return appended;
    this.#encoded.pushEncoded(appended.json, 1, appended.task.id);
    return { task: appended.task, text: appended.text };
  }
}
