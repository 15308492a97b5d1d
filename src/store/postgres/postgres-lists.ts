// Every list of a deployment in one PostgreSQL schema: the directory's writes, one SQL function
// each (lists-sql.ts), this process's bounded copies of the lists it reads, and the one connection
// that listens for every list's changes.
import type { DirectoryLimits, ListIfMatch, ListResult, PutConditions } from "../../list/list-directory.ts";
import { randomListName } from "../../list/list-names.ts";
import { BoundedCopies } from "../bounded-copies.ts";
import type * as seam from "../store.ts";
import { ListCopy, type Watch } from "./list-copy.ts";
import { listStatements } from "./lists-sql.ts";
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

/** Bytes of lists' copies a Node, Bun or Deno process keeps when not told otherwise. */
export const SERVER_COPY_BYTES = 64 * 1024 * 1024;

/**
 * The lists in a PostgreSQL schema, shared by every process and isolate that uses it. Task writes
 * go to their list's row alone; creating, retitling and deleting lists take the directory's row,
 * so they follow one another across processes, and a task write never waits for them but on its
 * own list's row. Each process keeps copies of the lists it reads, at most `maxCopyBytes` of them,
 * the least recently used dropped first.
 */
export class PostgresLists implements seam.TaskLists {
  readonly #db: PostgresDatabase;
  readonly #listen: Listen | undefined;
  readonly #watch: Watch;
  readonly #copies: BoundedCopies<ListCopy>;
  readonly #statements: ReturnType<typeof listStatements>;

  /** `schema` must be a safe SQL identifier (see `parsePostgresSchema`); it also names the channel of every list. */
  constructor(use: WithClient, schema: string, watch: PostgresWatch) {
    this.#db = new PostgresDatabase(use, schema);
    this.#statements = listStatements(`"${schema}"`);
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
        this.#copies.peek(name)?.changed(change === undefined ? undefined : Number(change));
      },
      () => {
        for (const copy of this.#copies.values()) copy.changed();
      },
    );
  }

  list(name: string): PostgresStore {
    return new PostgresStore(this.#db, name, () => this.#copy(name));
  }

  directory(): Promise<seam.Directory> {
    return this.#db.run("read", async (sql) => {
      const [row] = await sql.unsafe(this.#statements.directory, [], PREPARED);
      return { version: String(row?.version), json: String(row?.json) };
    });
  }

  async create(title: string, limits: DirectoryLimits, key?: seam.IdempotencyKey): Promise<seam.ListWriteResult> {
    for (;;) {
      const parameters = [
        randomListName(),
        JSON.stringify(title),
        limits.maxLists,
        key?.scope ?? null,
        key?.key ?? null,
        key?.fingerprint ?? null,
        limits.maxKeys,
      ];
      const row = await this.#write(this.#statements.create, parameters);
      // 130 random bits all but never meet a name that was given: then another is drawn.
      if (row.outcome !== "taken") return resultOf(row, limits);
    }
  }

  async put(
    name: string,
    title: string,
    conditions: PutConditions,
    limits: DirectoryLimits,
  ): Promise<seam.ListWriteResult> {
    const parameters = [
      name,
      JSON.stringify(title),
      ifMatchJson(conditions.ifMatch),
      conditions.ifNoneMatch,
      limits.maxLists,
    ];
    return resultOf(await this.#write(this.#statements.put, parameters), limits);
  }

  async patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    const parameters = [name, title === undefined ? null : JSON.stringify(title), ifMatchJson(ifMatch)];
    return resultOf(await this.#write(this.#statements.patch, parameters), undefined);
  }

  async remove(name: string, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    const parameters = [name, ifMatchJson(ifMatch), this.#db.schema];
    return resultOf(await this.#write(this.#statements.remove, parameters), undefined);
  }

  /**
   * Starts every list on a new history after a restore from a dump (restore-sql.ts), and returns
   * what to tell the operator. A schema without lists is refused, and none is made in it.
   */
  restored(): Promise<string> {
    return this.#db.run("restore", async (sql) => {
      const [found] = await sql.unsafe(this.#db.sql.listed);
      if (found?.listed !== true) {
        throw new Error(`DATABASE_SCHEMA ${this.#db.schema} holds no task list: restore the dump of its tables first`);
      }
      await this.#db.migrate(sql);
      const [row] = await sql.unsafe(this.#db.sql.restored);
      return String(row?.said);
    });
  }

  #copy(name: string): ListCopy {
    return this.#copies.use(
      name,
      () => new ListCopy(this.#db, name, this.#watch, (copy) => this.#copies.sized(name, copy)),
    );
  }

  async #write(statement: string, parameters: readonly unknown[]): Promise<Record<string, unknown>> {
    return this.#db.run("write", async (sql) => {
      const [row] = await sql.unsafe(statement, parameters as never[], PREPARED);
      if (row === undefined) throw new Error("A list function returned no row");
      return row;
    });
  }
}

/** An If-Match as the list functions take it: JSON null for none, `"*"` for any, else the array of versions. */
function ifMatchJson(ifMatch: ListIfMatch): string | null {
  if (ifMatch === undefined) return null;
  return JSON.stringify(ifMatch === "any" ? "*" : ifMatch);
}

/** A list function's row as the directory's result. */
function resultOf(row: Record<string, unknown>, limits: DirectoryLimits | undefined): ListResult {
  const outcome = String(row.outcome);
  switch (outcome) {
    case "created":
    case "retitled":
    case "unchanged": {
      const list = {
        name: String(row.name),
        title: JSON.parse(String(row.title_json)) as string,
        version: String(row.version),
      };
      // PostgreSQL keeps the ids and change numbers a list made again continues: nothing to resume here.
      return outcome === "created" ? { outcome, list, resume: { highestId: 0, change: 0 } } : { outcome, list };
    }
    case "replayed":
      return { outcome, json: String(row.replay_json) };
    case "deleted":
      return { outcome, name: String(row.name) };
    case "full":
      return { outcome, maxLists: limits?.maxLists ?? 0 };
    default:
      return { outcome: outcome as "key-reused" | "not-found" | "gone" | "precondition-failed" | "default-kept" };
  }
}
