// Every list in a SQLite database file of its own, for a Node, Bun or Deno server that is the
// file's only writer: kept across restarts, held and read in memory.
import { HeldLists } from "../../engine/held-lists.ts";
import { HeldListStore } from "../../engine/held-store.ts";
import { NEW_HISTORY } from "../../engine/new-history.ts";
import { StoreUnavailableError } from "../../errors.ts";
import { freshDirectory, type ListResult } from "../../list/list-directory.ts";
import { DEFAULT_LIST } from "../../list/list-names.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import { SqliteDirectory } from "./sqlite-directory.ts";
import { openSqliteDatabase, SqliteList } from "./sqlite-list.ts";

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
 * Every list of a SQLite database file, of which this process must be the only writer: the lists
 * and their directory are held in memory, where each write is decided, and each change is written
 * to the file before memory takes it, so a read never touches the database.
 *
 * Before each write commits, it checks that the path still holds the files it opened: SQLite in
 * WAL mode would go on writing to a file deleted or moved away, and a restart would not find what
 * was acknowledged. Such a write, or one SQLite cannot write (a disk full, an I/O error), is
 * rolled back and gets 503; the log says so once, and again once a write succeeds.
 */
export class SqliteFileLists extends HeldLists {
  /** Opens the lists in `db`, making the default list if the database holds none, and loads it. */
  constructor(db: SqliteFileConnection, log: StoreLog = () => {}) {
    const file = new FileWrites(db, log);
    const connection = file.connection;
    const copies = openSqliteDatabase(connection);
    const directory = new SqliteDirectory(connection);
    connection.transaction(() => {
      const state = directory.state();
      if (state.lists.some((list) => list.name === DEFAULT_LIST)) return;
      const [fresh] = freshDirectory(state.instance).lists;
      if (fresh !== undefined) new SqliteList(connection, DEFAULT_LIST).create(fresh, 0, undefined);
    });
    for (const name of copies) {
      log(
        "info",
        `The list ${JSON.stringify(name)} of the SQLite file ${JSON.stringify(db.path)} is a copy npm run backup made: ${NEW_HISTORY}`,
      );
    }
    super({
      keeping: {
        directory: () => directory.state(),
        list: (name) => {
          const list = new SqliteList(connection, name);
          return new HeldListStore(
            () => list.held(list.row() ?? missing(name)),
            (change) => file.write(() => list.persist(change)),
            {
              keys: {
                load: () => list.keys(),
                add: (row) => file.write(() => connection.transaction(() => list.addKey(row))),
                remove: (id) => file.write(() => connection.transaction(() => list.removeKey(id))),
              },
            },
          );
        },
        decide: (decision, maxKeys) => {
          let result: ListResult | undefined;
          file.write(() => {
            result = connection.transaction(() => {
              const decided = decision();
              directory.persist(decided, maxKeys);
              return decided;
            });
          });
          return result as ListResult;
        },
      },
    });
    // Reading the default list now makes a file that cannot be read stop the start, not a request.
    this.list(DEFAULT_LIST).read();
    file.opened();
  }
}

function missing(name: string): never {
  throw new Error(`The list ${JSON.stringify(name)} has no row in the database`);
}

/** The writes to one database file: each checked against the files opened, and its failures told once. */
class FileWrites {
  readonly #db: SqliteFileConnection;
  readonly #log: StoreLog;
  /** The files opened, once the list is loaded; undefined while it loads. */
  #files: string | undefined;
  /** Whether writes fail to reach the file: logged when it starts and when it ends. */
  #failing = false;
  /** The connection the list uses: each transaction checks the files before it commits. */
  readonly connection: SqliteConnection;

  constructor(db: SqliteFileConnection, log: StoreLog) {
    this.#db = db;
    this.#log = log;
    this.connection = {
      query: db.query.bind(db),
      iterate: db.iterate.bind(db),
      transaction: (work) =>
        db.transaction(() => {
          const result = work();
          this.#checkFiles();
          return result;
        }),
    };
  }

  /** Notes the files the list was loaded from: writes from now on must find them at the path. */
  opened(): void {
    this.#files = this.#db.files();
  }

  /** Runs a write, making a failure to reach the file a {@link StoreUnavailableError} the log tells once. */
  write(write: () => void): void {
    try {
      write();
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
    if (this.#failing) {
      this.#failing = false;
      this.#log("info", `The SQLite file ${JSON.stringify(this.#db.path)} takes writes again`);
    }
  }

  /** Throws, rolling the transaction back, when the path no longer holds the files opened. */
  #checkFiles(): void {
    if (this.#files === undefined || this.#db.files() === this.#files) return;
    throw new StoreUnavailableError(
      `SQLITE_PATH ${JSON.stringify(this.#db.path)} no longer holds the database file this server opened (it was deleted, moved away or replaced): writes answer 503 until that file is back at its path, or the server is restarted on the file now there (a copy is put back with npm run restore, with the server stopped)`,
    );
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
