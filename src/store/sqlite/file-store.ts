// The list in a SQLite database file of its own, for a Node, Bun or Deno server that is the file's
// only writer: kept across restarts, read from memory.
import type { ListLimits } from "../../config.ts";
import { StoreUnavailableError } from "../../errors.ts";
import { EncodedList, type ListVersion } from "../../list/encoded-list.ts";
import { type NewTask, taskJson } from "../../list/task.ts";
import { ChangeSignal } from "../change-signal.ts";
import { NEW_HISTORY } from "../new-history.ts";
import type * as seam from "../store.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import { SqliteList } from "./sqlite-list.ts";

/** A connection to a database file, which a Node, Bun or Deno server opens and may close. */
export interface SqliteFileConnection extends SqliteConnection {
  /** The path it was opened with. */
  readonly path: string;
  /**
   * Which files are at the path now, as a text that changes when the database file or its log is
   * deleted, moved away or replaced, and is "" for a database in memory.
   */
  files(): string;
  close(): void;
}

/** Writes one line to the operator's log, at `level`: how a store says something went wrong or right again. */
export type StoreLog = (level: "error" | "info", message: string) => void;

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
 *
 * Before each write commits, it checks that the path still holds the files it opened: SQLite in
 * WAL mode would go on writing to a file deleted or moved away, and a restart would not find what
 * was acknowledged. Such a write, or one SQLite cannot write (a disk full, an I/O error), is
 * rolled back and gets 503; the log says so once, and again once a write succeeds.
 */
export class SqliteFileStore implements seam.TaskStore {
  readonly #list: SqliteList;
  readonly #encoded: EncodedList;
  readonly #changes = new ChangeSignal(() => this.#encoded.changedBytes);
  readonly #db: SqliteFileConnection;
  readonly #log: StoreLog;
  /** The files opened, once the list is loaded; undefined while the constructor loads it. */
  #files: string | undefined;
  /** Whether appends fail to reach the file: logged when it starts and when it ends. */
  #failing = false;

  /** Opens the list in `db`, creating it if the database holds none, and loads it. */
  constructor(db: SqliteFileConnection, log: StoreLog = () => {}) {
    this.#db = db;
    this.#log = log;
    this.#list = new SqliteList({
      query: db.query.bind(db),
      iterate: db.iterate.bind(db),
      transaction: (work) =>
        db.transaction(() => {
          const result = work();
          this.#checkFiles();
          return result;
        }),
    });
    this.#encoded = new EncodedList(this.#list.instance, this.#list.stored());
    this.#files = db.files();
    if (this.#list.newHistory) {
      log("info", `The SQLite file ${JSON.stringify(db.path)} is a copy npm run backup made: ${NEW_HISTORY}`);
    }
  }

  read(): ListVersion {
    return this.#encoded.read();
  }

  async append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult> {
    const appended = this.#written(
      () => this.#list.append(task, limits, key),
      (result) => "task" in result,
    );
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

  async update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult> {
    const { result, json } = this.#written(
      () => this.#list.update(id, patch, limits, ifMatch),
      (edit) => edit.result.outcome === "updated",
    );
    if (json !== undefined) {
      this.#encoded.replace(id, json, this.#list.change);
      this.#changes.notify();
    }
    return result;
  }

  async remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult> {
    const { result } = this.#written(
      () => this.#list.remove(id, ifMatch),
      (edit) => edit.result.outcome === "deleted",
    );
    if (result.outcome === "deleted") {
      this.#encoded.remove(id, this.#list.change);
      this.#changes.notify();
    }
    return result;
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    if (bytesPast !== undefined) return this.#changes.waitPast(bytesPast, signal);
    return this.#changes.wait(() => this.#encoded.change > change, signal);
  }

  /** Throws, rolling the transaction back, when the path no longer holds the files opened. */
  #checkFiles(): void {
    if (this.#files === undefined || this.#db.files() === this.#files) return;
    throw new StoreUnavailableError(
      `SQLITE_PATH ${JSON.stringify(this.#db.path)} no longer holds the database file this server opened (it was deleted, moved away or replaced): writes answer 503 until that file is back at its path, or the server is restarted on the file now there (a copy is put back with npm run restore, with the server stopped)`,
    );
  }

  /**
   * Runs a write, making a failure to reach the file a {@link StoreUnavailableError} the log tells once.
   * Only a write that `changedList` proves the file takes writes again.
   */
  #written<T>(write: () => T, changedList: (result: T) => boolean): T {
    let result: T;
    try {
      result = write();
    } catch (error) {
      const unavailable =
        error instanceof StoreUnavailableError
          ? error
          : isDiskFault(error)
            ? new StoreUnavailableError(
                `The SQLite file ${JSON.stringify(this.#db.path)} cannot be written (${error.message}): writes answer 503 until a write succeeds`,
                { cause: error },
              )
            : undefined;
      if (unavailable === undefined) throw error;
      if (!this.#failing) this.#log("error", unavailable.message);
      this.#failing = true;
      throw unavailable;
    }
    if (this.#failing && changedList(result)) {
      this.#failing = false;
      this.#log("info", `The SQLite file ${JSON.stringify(this.#db.path)} takes writes again`);
    }
    return result;
  }
}

/**
 * SQLite's primary result codes for a file it cannot write: READONLY, IOERR, FULL and CANTOPEN.
 * node:sqlite gives the code as `errcode`, bun:sqlite as `errno`, either possibly extended.
 */
const DISK_FAULTS = new Set([8, 10, 13, 14]);

function isDiskFault(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = "errcode" in error ? error.errcode : "errno" in error ? error.errno : undefined;
  return typeof code === "number" && DISK_FAULTS.has(code & 0xff);
}
