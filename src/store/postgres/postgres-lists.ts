// Every list of a deployment in one PostgreSQL schema: the directory's writes, decided by
// list-directory.ts and written if no other list write came first (directory-sql.ts), this process's
// bounded copies of the lists it reads, and the one connection that listens for every list's changes.
import { BoundedCopies } from "../../engine/bounded-copies.ts";
import { NEW_HISTORY } from "../../engine/new-history.ts";
import type * as seam from "../../engine/task-store.ts";
import { StoreUnavailableError } from "../../errors.ts";
import {
  type Continuation,
  type DirectoryLimits,
  ListDirectory,
  type ListIfMatch,
  type ListResult,
  type PutConditions,
} from "../../list/list-directory.ts";
import { directoryState, writeDirectory } from "./directory-rows.ts";
import { type DirectoryStatements, directoryStatements } from "./directory-sql.ts";
import { KEYS_CHANGED } from "./key-rows.ts";
import { ListCopy, type Watch } from "./list-copy.ts";
import { PostgresDatabase, PREPARED, type WithClient } from "./postgres-database.ts";
import { PostgresStore } from "./postgres-store.ts";

export type { WithClient } from "./postgres-database.ts";

/**
 * Listens on a channel for the whole process: calls `onNotify` with each notification's payload
 * and `onListen` each time the listening connection is (re)made, when notifications may have been
 * missed. postgres.js's `sql.listen` is one.
 */
export type Listen = (channel: string, onNotify: (payload: string) => void, onListen: () => void) => Promise<unknown>;

/** How readers hear of other processes' writes, and how many bytes of copies the process keeps. */
export type PostgresWatch =
  | { readonly listen: Listen; readonly maxCopyBytes?: number }
  | { readonly pollMs: number; readonly maxCopyBytes?: number };

/** Attempts at one list write (or a restore), each meeting another list write, before it answers 503. */
const MAX_LIST_ATTEMPTS = 100;

const START: Continuation = { highestId: 0, change: 0 };

/** Bytes of lists' copies a Node, Bun or Deno process keeps when not told otherwise. */
export const SERVER_COPY_BYTES = 64 * 1024 * 1024;

/**
 * The lists in a PostgreSQL schema, shared by every process and isolate that uses it. Task writes
 * go to their list's row alone; creating, retitling and deleting lists are decided against the
 * directory as the database holds it and written only while it is still at that change, taking
 * its row, so they follow one another across processes, and a task write never waits for them but
 * on its own list's row. Each process keeps copies of the lists it reads, at most `maxCopyBytes` of them,
 * the least recently used dropped first.
 */
export class PostgresLists implements seam.TaskLists {
  readonly #db: PostgresDatabase;
  readonly #listen: Listen | undefined;
  readonly #watch: Watch;
  readonly #copies: BoundedCopies<ListCopy>;
  readonly #statements: DirectoryStatements;
  /** Who hears of each list's keys' changes, while this process listens: subscriptions opened with a key. */
  readonly #keyListeners = new Map<string, Set<() => void>>();

  /** `schema` must be a safe SQL identifier (see `parsePostgresSchema`); it also names the channel of every list. */
  constructor(use: WithClient, schema: string, watch: PostgresWatch) {
    this.#db = new PostgresDatabase(use, schema);
    this.#statements = directoryStatements(`"${schema}"`);
    this.#listen = "listen" in watch ? watch.listen : undefined;
    this.#watch = "listen" in watch ? { listen: true } : { pollMs: watch.pollMs };
    this.#copies = new BoundedCopies(watch.maxCopyBytes ?? SERVER_COPY_BYTES);
  }

  /** The copies this process keeps, for what it holds. */
  get copies(): BoundedCopies<ListCopy> {
    return this.#copies;
  }

  /**
   * Applies the migrations the schema lacks (making the default list with its initial tasks in a new
   * one), loads the default list and, on a server, starts listening for every list's writes on one
   * connection. Servers call it at start, so that a database they cannot use stops them.
   */
  async open(): Promise<void> {
    await this.list("default").read();
    const listen = this.#listen;
    if (listen === undefined) return;
    // A notification names the list that changed, and a task write's its change number (apply-sql.ts);
    // the list's copy asks what changed, once for every reader.
    await listen(
      this.#db.schema,
      (payload) => {
        const [name = "", change] = payload.split(" ");
        if (change === KEYS_CHANGED) return this.#keysChanged(name);
        this.#copies.peek(name)?.changed(change === undefined ? undefined : Number(change));
      },
      () => {
        for (const copy of this.#copies.values()) copy.changed();
        for (const name of this.#keyListeners.keys()) this.#keysChanged(name);
      },
    );
  }

  list(name: string): PostgresStore {
    const keysChanged = this.#listen === undefined ? undefined : (listener: () => void) => this.#onKeys(name, listener);
    return new PostgresStore(this.#db, name, () => this.#copy(name), keysChanged);
  }

  /** Calls `listener` whenever list `name`'s keys may have changed, until the answer is called. */
  #onKeys(name: string, listener: () => void): () => void {
    let listeners = this.#keyListeners.get(name);
    if (listeners === undefined) {
      listeners = new Set();
      this.#keyListeners.set(name, listeners);
    }
    listeners.add(listener);
    const kept = listeners;
    return () => {
      kept.delete(listener);
      if (kept.size === 0 && this.#keyListeners.get(name) === kept) this.#keyListeners.delete(name);
    };
  }

  #keysChanged(name: string): void {
    for (const listener of [...(this.#keyListeners.get(name) ?? [])]) listener();
  }

  directory(): Promise<seam.Directory> {
    return this.#db.run("read", async (sql) => {
      const [row] = await sql.unsafe(this.#statements.directory, [], PREPARED);
      return { version: String(row?.version), json: String(row?.json) };
    });
  }

  create(title: string, limits: DirectoryLimits, key?: seam.IdempotencyKey): Promise<seam.ListWriteResult> {
    return this.#write((directory) => directory.create(title, limits, key), limits.maxKeys);
  }

  put(name: string, title: string, conditions: PutConditions, limits: DirectoryLimits): Promise<seam.ListWriteResult> {
    return this.#write((directory) => directory.put(name, title, conditions, limits), limits.maxKeys);
  }

  patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    return this.#write((directory) => directory.patch(name, title, ifMatch), 0);
  }

  remove(name: string, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    // The list's row keeps where it stopped, for the name made again: this directory is let go after.
    return this.#write((directory) => directory.remove(name, ifMatch, () => START), 0);
  }

  /**
   * Starts every list on a new history after a restore from a dump (restore-sql.ts), and returns
   * what to tell the operator. A schema without lists is refused, and none is made in it.
   */
  restored(): Promise<string> {
    const schema = this.#db.schema;
    return this.#db.run("restore", async (sql) => {
      const [found] = await sql.unsafe(this.#db.sql.listed);
      if (found?.listed !== true) {
        throw new Error(`DATABASE_SCHEMA ${schema} holds no task list: restore the dump of its tables first`);
      }
      await this.#db.migrate(sql);
      for (let attempt = 0; attempt < MAX_LIST_ATTEMPTS; attempt++) {
        const [row] = await sql.unsafe(this.#db.sql.restored);
        if (row?.restored === true) return `Schema ${schema} restored: ${NEW_HISTORY}`;
      }
      throw new StoreUnavailableError(`The lists changed under each of ${MAX_LIST_ATTEMPTS} attempts at a restore`);
    });
  }

  #copy(name: string): ListCopy {
    return this.#copies.use(
      name,
      () => new ListCopy(this.#db, name, this.#watch, (copy) => this.#copies.sized(name, copy)),
    );
  }

  /**
   * Decides a list write against the directory as the database holds it now, and writes it only
   * while the directory is still at that change; else, another list write came first, decides
   * again. A deletion clears the list's rows once it is not live, in a statement of their own.
   */
  #write(decide: (directory: ListDirectory) => ListResult, maxKeys: number): Promise<ListResult> {
    return this.#db.run("write", async (sql) => {
      for (let attempt = 0; attempt < MAX_LIST_ATTEMPTS; attempt++) {
        const state = await directoryState(sql, this.#statements);
        const result = decide(new ListDirectory(state));
        const written = await writeDirectory(sql, this.#statements, state.change, result, {
          maxKeys,
          channel: this.#db.schema,
        });
        if (!written) continue;
        if (result.outcome === "deleted") await sql.unsafe(this.#statements.cleared, [result.name], PREPARED);
        return result;
      }
      throw new StoreUnavailableError(`The lists changed under each of ${MAX_LIST_ATTEMPTS} attempts at a list write`);
    });
  }
}
