// The list in a SQLite database file of its own, for a Node, Bun or Deno server that is the file's
// only writer: kept across restarts, read from memory.
import type { ListLimits } from "../../config.ts";
import { EncodedList, type ListVersion } from "../../list/encoded-list.ts";
import { type NewTask, taskJson } from "../../list/task.ts";
import { ChangeSignal } from "../change-signal.ts";
import type {
  AppendResult,
  IdempotencyKey,
  IfMatch,
  RemoveResult,
  TaskPatch,
  TaskStore,
  UpdateResult,
} from "../store.ts";
import { type SqliteConnection, SqliteList } from "./sqlite-list.ts";

/** A connection to a database file, which a Node, Bun or Deno server opens and may close. */
export interface SqliteFileConnection extends SqliteConnection {
  close(): void;
}

/** Opens a database file, creating it if needed; each runtime has its own driver. */
export type OpenSqliteFile = (path: string) => SqliteFileConnection;

/**
 * Pragmas for a database file that one process alone writes. EXCLUSIVE locking holds the file from
 * the first access until the process ends, so a second server on the same file fails at start
 * rather than letting two cached lists drift apart; WAL makes an append one write to the log.
 */
export const WRITER_PRAGMAS = ["PRAGMA locking_mode = EXCLUSIVE", "PRAGMA journal_mode = WAL"];

/**
 * The list in a SQLite database file. It must be the database's only writer: reads are served from
 * an {@link EncodedList} that follows each committed write, so a read never touches the database.
 */
export class SqliteFileStore implements TaskStore {
  readonly #list: SqliteList;
  readonly #encoded: EncodedList;
  readonly #changes = new ChangeSignal();

  /** Opens the list in `db`, creating it if the database holds none, and loads it. */
  constructor(db: SqliteConnection) {
    this.#list = new SqliteList(db);
    this.#encoded = new EncodedList(this.#list.instance, this.#list.stored());
  }

  read(): ListVersion {
    return this.#encoded.read();
  }

  async append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): Promise<AppendResult> {
    const appended = this.#list.append(task, limits, key);
    const usage = this.#list.usage;
    if ("full" in appended) return { outcome: "full", limit: appended.full, usage };
    if ("keyReused" in appended) return { outcome: "key-reused", usage };
    if ("replayed" in appended) {
      return { outcome: "replayed", task: appended.replayed, json: taskJson(appended.replayed), usage };
    }
    this.#encoded.push(appended.json, appended.task.id, this.#list.change);
    this.#changes.notify();
    return { outcome: "added", task: appended.task, json: appended.text, usage: this.#list.usage };
  }

  async update(id: number, patch: TaskPatch, limits: ListLimits, ifMatch?: IfMatch): Promise<UpdateResult> {
    const { result, json } = this.#list.update(id, patch, limits, ifMatch);
    if (json !== undefined) {
      this.#encoded.replace(id, json, this.#list.change);
      this.#changes.notify();
    }
    return result;
  }

  async remove(id: number, ifMatch?: IfMatch): Promise<RemoveResult> {
    const { result } = this.#list.remove(id, ifMatch);
    if (result.outcome === "deleted") {
      this.#encoded.remove(id, this.#list.change);
      this.#changes.notify();
    }
    return result;
  }

  nextChange(change: number, signal: AbortSignal): Promise<void> {
    return this.#changes.wait(() => this.#list.change > change, signal);
  }
}
