import { DurableObject } from "cloudflare:workers";
import { ConfigError } from "../config.ts";
import { type SqliteConnection, SqliteStore } from "./sqlite.ts";
import { isKnown, type ListRead, type NewTask, type Task, type TaskStore } from "./store.ts";

declare global {
  namespace Cloudflare {
    interface Env {
      /** The list's Durable Object; bound in the `durable` environment of wrangler.toml only. */
      readonly TASK_LIST?: DurableObjectNamespace<TaskListObject>;
    }
  }
}

/** The name of the deployment's one list object. */
const LIST_NAME = "default";

/**
 * A deployment's list, in a SQLite-backed Durable Object. Being the database's only writer, it
 * serves reads from the list it keeps in memory, rebuilt from SQL each time the object starts.
 */
export class TaskListObject extends DurableObject<Cloudflare.Env> {
  // Built synchronously in the constructor, since the SQL API is synchronous: no request can reach
  // the object before the list is loaded, which is what blockConcurrencyWhile would otherwise ensure.
  readonly #store: SqliteStore;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#store = new SqliteStore(storageConnection(ctx.storage));
  }

  /** Reads the list; the body is left out when its version is among `known`. */
  read(known: readonly string[]): Promise<ListRead> {
    return this.#store.read(known);
  }

  /** Appends a task with the next id unless the list holds `maxTasks` tasks (then undefined). */
  append(task: NewTask, maxTasks: number): Promise<Task | undefined> {
    return this.#store.append(task, maxTasks);
  }
}

/**
 * The list as a Worker reaches it: typed RPC calls to the deployment's {@link TaskListObject}. The
 * isolate keeps the last body it fetched and offers its version with every read, so an unchanged
 * list crosses from the object to the Worker only once per isolate.
 */
export class DurableObjectStore implements TaskStore {
  readonly #namespace: DurableObjectNamespace<TaskListObject>;
  #cached: { readonly version: string; readonly body: Uint8Array<ArrayBuffer> } | undefined;

  constructor(namespace: DurableObjectNamespace<TaskListObject>) {
    this.#namespace = namespace;
  }

  async read(known: readonly string[]): Promise<ListRead> {
    // Taken before the call: another request may replace the cache while this one waits.
    const cached = this.#cached;
    const offered = cached === undefined ? known : [...known, cached.version];
    const { version, body } = await this.#stub().read(offered);
    if (body !== undefined) {
      this.#cached = { version, body };
      return { version, body };
    }
    if (cached !== undefined && cached.version === version && !isKnown(version, known)) {
      return { version, body: cached.body };
    }
    return { version };
  }

  async append(task: NewTask, maxTasks: number): Promise<Task | undefined> {
    return this.#stub().append(task, maxTasks);
  }

  #stub(): DurableObjectStub<TaskListObject> {
    return this.#namespace.getByName(LIST_NAME);
  }
}

/**
 * The store for `TASK_STORE=durable`. Throws {@link ConfigError} when the Worker was started
 * without the `TASK_LIST` binding, rather than keep the list in memory unannounced.
 */
export function durableStore(namespace: DurableObjectNamespace<TaskListObject> | undefined): TaskStore {
  if (namespace === undefined) {
    throw new ConfigError(
      "TASK_STORE is durable but the TASK_LIST Durable Object binding is missing: run or deploy with --env durable, or bind TASK_LIST to the TaskListObject class in wrangler.toml",
    );
  }
  return new DurableObjectStore(namespace);
}

function storageConnection(storage: DurableObjectStorage): SqliteConnection {
  return {
    query: (sql, ...params) => storage.sql.exec(sql, ...params).toArray(),
    transaction: (work) => storage.transactionSync(work),
  };
}
