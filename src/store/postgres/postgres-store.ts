// The list in a PostgreSQL schema, shared by every process and isolate that uses the schema: its
// SQL, its copy in this process, and how a reader hears of tasks other processes add.
import type { Sql } from "postgres";
import type { ListLimits } from "../../config.ts";
import { StoreUnavailableError } from "../../errors.ts";
import { encodeTask, type ListVersion } from "../../list/encoded-list.ts";
import { type ListUsage, limitReached } from "../../list/limits.ts";
import { type NewTask, type Task, taskJson } from "../../list/task.ts";
import { ChangeSignal } from "../change-signal.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges, ListMirror } from "../mirror.ts";
import { newInstance } from "../new-history.ts";
import type * as seam from "../store.ts";
import { changesOf, type Statements, statements } from "./list-sql.ts";

/**
 * Runs `work` with a client: on Node, Bun and Deno the process's pool, on Workers a client made
 * for this one request (Workers cannot reuse a connection across requests).
 */
export type WithClient = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

/**
 * Listens on a channel for the whole process: calls `onNotify` for each notification and
 * `onListen` each time the listening connection is (re)made, when notifications may have been
 * missed. postgres.js's `sql.listen` is one.
 */
export type Listen = (channel: string, onNotify: () => void, onListen: () => void) => Promise<unknown>;

/** How a reader hears that other processes added tasks. */
export type Watch =
  /** Node, Bun and Deno: LISTEN on the list's channel, one connection per process. */
  | { readonly listen: Listen }
  /** Workers, where Hyperdrive carries no LISTEN: each reader asks the database again every `pollMs`. */
  | { readonly pollMs: number };

/** Tasks one catch-up query hands over at most, beside its {@link CHANGES_CHUNK_BYTES}: it bounds each query's scan. */
const CHUNK_TASKS = 100_000;
/** Statements run as named prepared statements: planned once per connection, not per request. */
const PREPARED = { prepare: true } as const;
/** How many times an append that found the list full asks again when the list seems to have room (it was changed by hand). */
const APPEND_ATTEMPTS = 3;

/** The list's schema holds no list yet, or lost it: it is made, and the operation tried again. */
class MissingList extends Error {
  override name = "MissingList";
}

/**
 * The list in a PostgreSQL schema, shared by every process and isolate that uses the schema.
 *
 * Each process keeps a {@link ListMirror} of the list and, per read, asks only for the tasks after
 * its last id with the list's instance and count, in one query: a current copy costs one small
 * query and responds 304. An append is one statement: it updates the list's row, with both limits
 * in its WHERE, and inserts the task with the id it got. The row's lock is held until the
 * statement commits, so ids are contiguous, commits happen in id order, and a reader asking for
 * ids after its last never skips a task that commits late.
 */
export class PostgresStore implements seam.TaskStore {
  readonly #use: WithClient;
  readonly #schema: string;
  readonly #sql: Statements;
  readonly #mirror: ListMirror;
  readonly #watch: Watch;
  readonly #changes: ChangeSignal | undefined;
  #usage: ListUsage = { tasks: 0, bytes: 2 };

  /** `schema` must be a safe SQL identifier (see `parsePostgresSchema`); it also names the list's channel. */
  constructor(use: WithClient, schema: string, watch: Watch) {
    this.#use = use;
    this.#schema = schema;
    this.#sql = statements(schema);
    this.#watch = watch;
    // A process that listens serves many readers from one copy, so their reads share questions.
    this.#mirror = new ListMirror({ shared: "listen" in watch });
    this.#changes = "listen" in watch ? new ChangeSignal(() => this.#mirror.current.changedBytes) : undefined;
  }

  /**
   * Creates the schema, its tables and the initial tasks when the list does not exist yet, loads
   * the list and, on a server, starts listening for other processes' appends. Servers call it at
   * start, so that a database they cannot use stops them.
   */
  async open(): Promise<void> {
    await this.#run(async (sql) => {
      await this.#initialise(sql);
      await this.#mirror.read((instance, after) => this.#changesSince(sql, instance, after));
    });
    if ("listen" in this.#watch) {
      // A notification says only that the list changed; the copy asks for what, once for every reader.
      const caughtUp = () => {
        this.read().then(
          () => this.#changes?.notify(),
          () => this.#changes?.notify(),
        );
      };
      await this.#watch.listen(this.#schema, caughtUp, caughtUp);
    }
  }

  read(): Promise<ListVersion> {
    return this.#run((sql) => this.#mirror.read((instance, after) => this.#changesSince(sql, instance, after)));
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    if (this.#changes !== undefined && bytesPast !== undefined) return this.#changes.waitPast(bytesPast, signal);
    if (this.#changes !== undefined) return this.#changes.wait(() => this.#mirror.current.change > change, signal);
    const { pollMs } = this.#watch as { pollMs: number };
    // Each reader asks again on its own timer: on Workers one request may not wake another.
    return new Promise((done) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", finish);
        done();
      };
      const timer = setTimeout(finish, pollMs);
      signal.addEventListener("abort", finish, { once: true });
    });
  }

  append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult> {
    const titleJson = JSON.stringify(task.title);
    // The task's JSON as the list shows it, but for its id, whose digits only the database knows.
    const rest = encodeTask({ id: 0, ...task }).byteLength - 1;
    return this.#run(async (sql) => {
      for (let attempt = 1; ; attempt++) {
        const limitsAndTask = [rest, limits.maxTasks, limits.maxBytes, titleJson, task.completed, this.#schema];
        const [row] =
          key === undefined
            ? await sql.unsafe(this.#sql.append, limitsAndTask, PREPARED)
            : await sql.unsafe(
                this.#sql.appendKeyed,
                [...limitsAndTask, key.scope, key.key, key.fingerprint, limits.maxKeys],
                PREPARED,
              );
        if (row !== undefined && row.outcome !== "full") {
          this.#usage = { tasks: Number(row.task_count), bytes: Number(row.json_bytes) };
          if (row.outcome === "key-reused") return { outcome: "key-reused", usage: this.#usage };
          if (row.outcome === "replayed") {
            const json = String(row.task_json);
            return { outcome: "replayed", task: JSON.parse(json) as Task, json, usage: this.#usage };
          }
          const created = { id: Number(row.id), ...task };
          return { outcome: "added", task: created, json: taskJson(created), usage: this.#usage };
        }
        // Nothing appended: the list is full, or it has no row. Which limit, the row says, unless a
        // deletion made room since: then the append is tried again.
        const [state] = await sql.unsafe(this.#sql.state, [], PREPARED);
        if (state === undefined) throw new MissingList("The list's row is missing");
        this.#usage = { tasks: Number(state.task_count), bytes: Number(state.json_bytes) };
        const added = rest + String(Number(state.last_id) + 1).length + (this.#usage.tasks > 0 ? 1 : 0);
        const limit = limitReached(this.#usage, added, limits);
        if (limit !== undefined) return { outcome: "full", limit, usage: this.#usage };
        if (attempt === APPEND_ATTEMPTS)
          throw new Error("The list kept changing under the append: it is being edited by hand");
      }
    });
  }

  update(id: number, patch: seam.TaskPatch, limits: ListLimits, ifMatch?: seam.IfMatch): Promise<seam.UpdateResult> {
    const titleJson = patch.title === undefined ? null : JSON.stringify(patch.title);
    const versions = ifMatch === undefined ? null : JSON.stringify(ifMatch);
    const parameters = [id, titleJson, patch.completed ?? null, versions, limits.maxBytes, this.#schema];
    return this.#run(async (sql) => {
      const [row] = await sql.unsafe(this.#sql.update, parameters, PREPARED);
      if (row === undefined) throw new MissingList("The list's row is missing");
      this.#usage = { tasks: Number(row.task_count), bytes: Number(row.json_bytes) };
      const outcome = String(row.outcome) as seam.UpdateResult["outcome"];
      if (outcome === "updated" || outcome === "unchanged") {
        const json = String(row.task_json);
        return { outcome, task: JSON.parse(json) as Task, json, version: String(row.version), usage: this.#usage };
      }
      if (outcome === "full") return { outcome, limit: "bytes", usage: this.#usage };
      return { outcome, usage: this.#usage };
    });
  }

  remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult> {
    return this.#run(async (sql) => {
      const versions = ifMatch === undefined ? null : JSON.stringify(ifMatch);
      const parameters = [id, versions, this.#schema];
      const [row] = await sql.unsafe(this.#sql.remove, parameters, PREPARED);
      if (row === undefined) throw new MissingList("The list's row is missing");
      this.#usage = { tasks: Number(row.task_count), bytes: Number(row.json_bytes) };
      return { outcome: String(row.outcome) as seam.RemoveResult["outcome"], usage: this.#usage };
    });
  }

  /**
   * Starts the list on a new history after a restore from a dump (restore-sql.ts), and returns what to
   * tell the operator. A list of an older version gains the function first; a schema without one is refused.
   */
  restored(): Promise<string> {
    return this.#run(async (sql) => {
      const [found] = await sql.unsafe("SELECT to_regclass($1) IS NOT NULL AS held", [`"${this.#schema}".list`]);
      if (found?.held !== true) {
        throw new Error(`DATABASE_SCHEMA ${this.#schema} holds no task list: restore the dump of its tables first`);
      }
      const [row] = await sql.unsafe(this.#sql.restored);
      return String(row?.said);
    });
  }

  /** What changed after change `after` of list `instance` (see `ChangesSince`). */
  async #changesSince(sql: Sql, instance: string | undefined, after: number): Promise<ListChanges> {
    const parameters = [instance ?? "", after, CHANGES_CHUNK_BYTES, CHUNK_TASKS];
    const rows = await sql.unsafe(this.#sql.changes, parameters, PREPARED);
    const [state] = rows;
    if (state === undefined) throw new MissingList("The list's row is missing");
    this.#usage = { tasks: Number(state.task_count), bytes: Number(state.json_bytes) };
    return changesOf(rows);
  }

  async #initialise(sql: Sql): Promise<void> {
    await sql.unsafe(this.#sql.initialise(newInstance()));
  }

  /**
   * Runs one operation with a client. A list that does not exist yet is made and the operation
   * run again; so is an operation refused with the termination notice of a connection that has
   * since been replaced (postgres.js hands the old notice to the first query on the new
   * connection, before that query is sent). A database that cannot be reached becomes a
   * {@link StoreUnavailableError}.
   */
  async #run<T>(operation: (sql: Sql) => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await this.#use(async (sql) => {
        try {
          return await operation(sql);
        } catch (error) {
          if (isMissingList(error)) await this.#initialise(sql);
          else if (!isStaleTermination(error)) throw error;
          return operation(sql);
        }
      });
    } catch (error) {
      if (isUnreachable(error))
        throw new StoreUnavailableError(`PostgreSQL cannot be reached: ${describeError(error)}`, { cause: error });
      throw error;
    }
    return result;
  }
}

/**
 * SQLSTATE 42P01 (no such table), 3F000 (no such schema), 42883 (no such function) and 42703 (no
 * such column): the list, or a part of it a newer version added, has not been made in this schema yet.
 */
function isMissingList(error: unknown): boolean {
  return (
    error instanceof MissingList ||
    (isPostgresError(error) && ["42P01", "3F000", "42883", "42703"].includes(error.code))
  );
}

function isStaleTermination(error: unknown): boolean {
  return isPostgresError(error) && error.code === "57P01";
}

function isPostgresError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && error.name === "PostgresError" && "code" in error && typeof error.code === "string";
}

/** Codes of failures to reach the server: the driver's own, and the sockets' of Node, Bun and Deno. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Whether a failure means the database cannot be reached now, rather than that a statement is
 * wrong: a connection refused, cut or timed out; the server shutting down, starting up, out of
 * connections or read-only after a failover; a login refused (a password rotated, a database
 * dropped). workerd's sockets throw plain errors without a code, known by their message.
 */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = "code" in error && typeof error.code === "string" ? error.code : "";
  if (error.name === "PostgresError") return /^(08|28|57P0[1235]$|53300$|3D000$|25006$)/.test(code);
  if (CONNECTION_CODES.has(code)) return true;
  return /connection attempt failed|network connection lost|connection (was )?(closed|reset)|stream was cancelled|proxy request failed/i.test(
    error.message,
  );
}

/** An error's code and message, for a log line. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = "code" in error && typeof error.code === "string" ? `${error.code} ` : "";
  return `${code}${error.message}`;
}
