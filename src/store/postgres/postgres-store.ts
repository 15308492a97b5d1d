// The list in a PostgreSQL schema, shared by every process and isolate that uses the schema: its
// SQL, its copy in this process, and how a reader hears of tasks other processes add.
import type { Sql } from "postgres";
import type { ListLimits } from "../../config.ts";
import { StoreUnavailableError } from "../../errors.ts";
import { encodeTask, type ListVersion } from "../../list/encoded-list.ts";
import { type ListUsage, limitReached } from "../../list/limits.ts";
import { INITIAL_TASKS, type NewTask, taskJson } from "../../list/task.ts";
import { ChangeSignal } from "../change-signal.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges, ListMirror } from "../mirror.ts";
import type { AppendResult, IdempotencyKey, TaskStore } from "../store.ts";

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

const encoder = new TextEncoder();
/** Tasks one catch-up query hands over at most, beside its {@link CHANGES_CHUNK_BYTES}: it bounds each query's scan. */
const CHUNK_TASKS = 100_000;
/** The key of the advisory lock that serialises creating lists: "tasklist" in ASCII. */
const SCHEMA_LOCK = "8386661138405353844";
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
 * query and answers 304. An append is one statement: it updates the list's row, with both limits
 * in its WHERE, and inserts the task with the id it got. The row's lock is held until the
 * statement commits, so ids are contiguous, commits happen in id order, and a reader asking for
 * ids after its last never skips a task that commits late.
 */
export class PostgresStore implements TaskStore {
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
    this.#changes = "listen" in watch ? new ChangeSignal() : undefined;
  }

  /**
   * Creates the schema, its tables and the initial tasks when the list does not exist yet, loads
   * the list and, on a server, starts listening for other processes' appends. Servers call it at
   * start, so that a database they cannot use stops them.
   */
  async open(): Promise<void> {
    await this.#run(async (sql) => {
      await this.#initialise(sql);
      await this.#mirror.read((instance, afterId) => this.#changesSince(sql, instance, afterId));
    });
    if ("listen" in this.#watch) {
      // A notification says only that the list grew; the copy asks for what, once for every reader.
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
    return this.#run((sql) => this.#mirror.read((instance, afterId) => this.#changesSince(sql, instance, afterId)));
  }

  nextChange(lastId: number, signal: AbortSignal): Promise<void> {
    if (this.#changes !== undefined) return this.#changes.wait(() => this.#mirror.current.lastId > lastId, signal);
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

  append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): Promise<AppendResult> {
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
          const title: unknown = row.outcome === "replayed" ? JSON.parse(String(row.title_json)) : task.title;
          const completed = row.outcome === "replayed" ? row.completed === true : task.completed;
          const kept = { id: Number(row.id), title: String(title), completed };
          return {
            outcome: row.outcome === "replayed" ? "replayed" : "added",
            task: kept,
            json: taskJson(kept),
            usage: this.#usage,
          };
        }
        // Nothing appended: the list is full, or it has no row. Which limit, the row says; the list
        // only grows, so it still breaks the limit the append found broken.
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

  /** The tasks after `afterId` of list `instance` (from the first when `instance` is another list's), with the list's instance and count. */
  async #changesSince(sql: Sql, instance: string | undefined, afterId: number): Promise<ListChanges> {
    const parameters = [instance ?? "", afterId, CHANGES_CHUNK_BYTES, CHUNK_TASKS];
    const [row] = await sql.unsafe(this.#sql.changes, parameters, PREPARED);
    if (row === undefined) throw new MissingList("The list's row is missing");
    this.#usage = { tasks: Number(row.task_count), bytes: Number(row.json_bytes) };
    const json = encoder.encode(typeof row.json === "string" ? row.json : "") as Uint8Array<ArrayBuffer>;
    const lengths = typeof row.lengths === "string" ? row.lengths.split(",").map(Number) : [];
    return {
      instance: String(row.instance),
      tasks: this.#usage.tasks,
      afterId: Number(row.after_id),
      added: { json, lengths },
    };
  }

  async #initialise(sql: Sql): Promise<void> {
    const instance = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
    await sql.unsafe(this.#sql.initialise(instance));
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

/** The SQL of one list, in the schema it lives in. */
interface Statements {
  readonly initialise: (instance: string) => string;
  readonly changes: string;
  readonly append: string;
  readonly appendKeyed: string;
  readonly state: string;
}

/** A task's JSON as the list shows it, built from a row of the tasks table. */
const TASK_JSON = `'{"id":' || id::text || ',"title":' || title_json || ',"completed":' || completed::text || '}'`;

function statements(schema: string): Statements {
  const s = `"${schema}"`;
  // The list's row is always found by its key: every append leaves a dead version of it, and a
  // scan would read them all until vacuum comes. Bytes a task adds to the list's JSON: its JSON,
  // the id's digits counted here, and a comma before every task but the first.
  const added = "$1 + length((last_id + 1)::text) + (task_count > 0)::integer";
  return {
    // One statement, so it is one transaction however the driver and Hyperdrive pool connections.
    // The advisory lock keeps processes that start at once from racing to create the same tables.
    // A title is kept as its JSON string literal: PostgreSQL text cannot hold the NUL a JSON title
    // may carry, nor the lone surrogates, which the driver would replace silently.
    initialise: (instance) => `DO $init$
BEGIN
  PERFORM pg_advisory_xact_lock(${SCHEMA_LOCK});
  -- CREATE SCHEMA IF NOT EXISTS needs the right to create schemas even when it exists.
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = '${schema}') THEN
    CREATE SCHEMA ${s};
  END IF;
  CREATE TABLE IF NOT EXISTS ${s}.tasks (
    id integer PRIMARY KEY,
    title_json text NOT NULL,
    completed boolean NOT NULL
  );
  -- One row: the list's random instance, which sets its ETags apart from every other list's, its
  -- count, last id and the bytes of its JSON, so that an append checks both limits on this row.
  CREATE TABLE IF NOT EXISTS ${s}.list (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    instance text NOT NULL,
    task_count integer NOT NULL,
    last_id integer NOT NULL,
    json_bytes bigint NOT NULL
  );
  -- Tables of the same names made for something else fail here rather than be written to.
  PERFORM id, title_json, completed FROM ${s}.tasks LIMIT 0;
  PERFORM instance, task_count, last_id, json_bytes FROM ${s}.list LIMIT 0;
  IF NOT EXISTS (SELECT FROM ${s}.list) THEN
    IF NOT EXISTS (SELECT FROM ${s}.tasks) THEN
      INSERT INTO ${s}.tasks (id, title_json, completed) VALUES ${INITIAL_TASKS.map(
        (task) => `(${task.id}, ${literal(JSON.stringify(task.title))}, ${task.completed})`,
      ).join(", ")};
    END IF;
    INSERT INTO ${s}.list (instance, task_count, last_id, json_bytes)
    SELECT '${instance}', count(*), COALESCE(max(id), 0), 2 + COALESCE(sum(octet_length(${TASK_JSON}) + 1) - 1, 0)
    FROM ${s}.tasks;
  END IF;
  -- Idempotency-Keys: each with the task it added and a hash of what it asked for, oldest first by
  -- seq, and how many each scope (write token) holds, so that its oldest past the limit are forgotten.
  CREATE TABLE IF NOT EXISTS ${s}.idempotency_keys (
    seq bigserial PRIMARY KEY,
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    task_id integer,
    UNIQUE (scope, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_by_scope ON ${s}.idempotency_keys (scope, seq);
  CREATE TABLE IF NOT EXISTS ${s}.idempotency_scopes (
    scope text PRIMARY KEY,
    keys integer NOT NULL
  );
  INSERT INTO ${s}.idempotency_scopes (scope, keys)
    SELECT scope, count(*) FROM ${s}.idempotency_keys GROUP BY scope ON CONFLICT DO NOTHING;
  IF NOT EXISTS (
    SELECT FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = '${schema}' AND p.proname = '${APPEND_KEYED}'
  ) THEN
    ${appendKeyedFunction(s)}
  END IF;
END
$init$`,
    // One statement, so the instance and count are of the same moment as the tasks. The window
    // keeps the tasks whose JSON starts before the chunk's byte limit: at least one, so a reader
    // always moves on.
    changes: `WITH state AS (
  SELECT instance, task_count, json_bytes, CASE WHEN instance = $1 THEN $2::integer ELSE 0 END AS after_id
  FROM ${s}.list WHERE singleton
), next AS (
  SELECT id, ${TASK_JSON} AS json FROM ${s}.tasks
  WHERE id > (SELECT after_id FROM state) ORDER BY id LIMIT $4
), chunk AS (
  SELECT id, json, sum(octet_length(json) + 1) OVER (ORDER BY id) - octet_length(json) - 1 AS before FROM next
)
SELECT state.instance, state.task_count, state.json_bytes::float8 AS json_bytes, state.after_id,
  added.json, added.lengths
FROM state, LATERAL (
  SELECT string_agg(json, ',' ORDER BY id) AS json,
    string_agg(octet_length(json)::text, ',' ORDER BY id) AS lengths
  FROM chunk WHERE before < $3
) AS added`,
    append: `WITH added AS (
  UPDATE ${s}.list SET task_count = task_count + 1, last_id = last_id + 1, json_bytes = json_bytes + ${added}
  WHERE singleton AND task_count < $2::bigint AND json_bytes + ${added} <= $3::bigint
  RETURNING last_id, task_count, json_bytes
), task AS (
  INSERT INTO ${s}.tasks (id, title_json, completed) SELECT last_id, $4, $5 FROM added RETURNING id
), told AS (
  -- Delivered at commit to every process listening on the list's channel.
  SELECT pg_notify($6, id::text) FROM task
)
SELECT task.id, added.task_count, added.json_bytes::float8 AS json_bytes FROM task, added, told`,
    appendKeyed: `SELECT * FROM ${s}.${APPEND_KEYED}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    state: `SELECT task_count, last_id, json_bytes::float8 AS json_bytes FROM ${s}.list WHERE singleton`,
  };
}

/** The name of the function that appends a task with an Idempotency-Key; a new version gets a new name. */
const APPEND_KEYED = "append_keyed_v2";

/**
 * The function that appends a task with an Idempotency-Key, in one statement and so in one
 * transaction: the key is claimed first, so a second request with it waits on the unique index
 * until the first commits, then answers with the first's task; a key that added nothing (the
 * list full) is forgotten in the same transaction, so a failure remembers nothing. A new key
 * forgets the oldest of its own scope past the limit, never another scope's.
 */
function appendKeyedFunction(s: string): string {
  const added = "rest + length((l.last_id + 1)::text) + (l.task_count > 0)::integer";
  return `CREATE FUNCTION ${s}.${APPEND_KEYED}(
      rest integer, max_tasks bigint, max_bytes bigint, new_title_json text, new_completed boolean,
      channel text, key_scope text, key_value text, key_fingerprint text, max_keys integer
    )
    RETURNS TABLE (outcome text, id integer, task_count integer, json_bytes float8, last_id integer,
      title_json text, completed boolean)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      claimed boolean;
      known record;
      appended record;
      kept integer;
    BEGIN
      INSERT INTO ${s}.idempotency_keys (scope, key, fingerprint) VALUES (key_scope, key_value, key_fingerprint)
        ON CONFLICT (scope, key) DO NOTHING;
      claimed := FOUND;
      IF NOT claimed THEN
        SELECT k.fingerprint, k.task_id INTO known FROM ${s}.idempotency_keys k
          WHERE k.scope = key_scope AND k.key = key_value;
        IF known.fingerprint <> key_fingerprint THEN
          RETURN QUERY SELECT 'key-reused'::text, NULL::integer, l.task_count, l.json_bytes::float8, l.last_id,
            NULL::text, NULL::boolean FROM ${s}.list l WHERE l.singleton;
          RETURN;
        END IF;
        RETURN QUERY SELECT 'replayed'::text, t.id, l.task_count, l.json_bytes::float8, l.last_id, t.title_json,
          t.completed FROM ${s}.tasks t, ${s}.list l WHERE t.id = known.task_id AND l.singleton;
        -- A task changed away by hand takes its key's meaning with it: the request is new again.
        IF FOUND THEN RETURN; END IF;
      END IF;
      UPDATE ${s}.list l SET task_count = l.task_count + 1, last_id = l.last_id + 1,
          json_bytes = l.json_bytes + ${added}
        WHERE l.singleton AND l.task_count < max_tasks AND l.json_bytes + ${added} <= max_bytes
        RETURNING l.last_id AS new_id, l.task_count AS count, l.json_bytes AS bytes INTO appended;
      IF NOT FOUND THEN
        IF claimed THEN
          DELETE FROM ${s}.idempotency_keys k WHERE k.scope = key_scope AND k.key = key_value;
        END IF;
        RETURN QUERY SELECT 'full'::text, NULL::integer, l.task_count, l.json_bytes::float8, l.last_id,
          NULL::text, NULL::boolean FROM ${s}.list l WHERE l.singleton;
        RETURN;
      END IF;
      INSERT INTO ${s}.tasks (id, title_json, completed) VALUES (appended.new_id, new_title_json, new_completed);
      UPDATE ${s}.idempotency_keys k SET task_id = appended.new_id, fingerprint = key_fingerprint
        WHERE k.scope = key_scope AND k.key = key_value;
      PERFORM pg_notify(channel, appended.new_id::text);
      IF claimed THEN
        INSERT INTO ${s}.idempotency_scopes AS c (scope, keys) VALUES (key_scope, 1)
          ON CONFLICT (scope) DO UPDATE SET keys = c.keys + 1 RETURNING c.keys INTO kept;
        IF kept > max_keys THEN
          DELETE FROM ${s}.idempotency_keys k WHERE k.seq IN (
            SELECT o.seq FROM ${s}.idempotency_keys o WHERE o.scope = key_scope AND o.task_id IS NOT NULL
              ORDER BY o.seq LIMIT kept - max_keys
          );
          UPDATE ${s}.idempotency_scopes c SET keys = max_keys WHERE c.scope = key_scope;
        END IF;
      END IF;
      RETURN QUERY SELECT 'added'::text, appended.new_id, appended.count, appended.bytes::float8, appended.new_id,
        NULL::text, NULL::boolean;
    END
    $fn$;`;
}

/** A constant string as an SQL literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * SQLSTATE 42P01 (no such table), 3F000 (no such schema) and 42883 (no such function): the list,
 * or a part of it a newer version added, has not been made in this schema yet.
 */
function isMissingList(error: unknown): boolean {
  return (
    error instanceof MissingList ||
    (isPostgresError(error) && (error.code === "42P01" || error.code === "3F000" || error.code === "42883"))
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
