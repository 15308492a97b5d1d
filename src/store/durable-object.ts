import { DurableObject } from "cloudflare:workers";
import { ConfigError, parseAppConfig, WORKERS_PLATFORM } from "../config.ts";
import { logEvent } from "../request-log.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges, ListMirror } from "./list-mirror.ts";
import { type SqliteConnection, SqliteList } from "./sqlite-list.ts";
import {
  type AppendResult,
  type ListLimits,
  type ListRead,
  type NewTask,
  overLimitWarning,
  type TaskStore,
} from "./store.ts";

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
 * A deployment's list, in a SQLite-backed Durable Object. It keeps no copy of the list in memory:
 * each caller keeps its own and asks only for the tasks it lacks, so the object's memory and each
 * RPC value stay small however long the list grows.
 */
export class TaskListObject extends DurableObject<Cloudflare.Env> {
  // Built synchronously in the constructor, since the SQL API is synchronous: no request can reach
  // the object before the list is open, which is what blockConcurrencyWhile would otherwise ensure.
  readonly #list: SqliteList;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#list = new SqliteList(storageConnection(ctx.storage));
    const config = parseAppConfig({ ...env }, WORKERS_PLATFORM);
    const warning = overLimitWarning(this.#list.usage, { maxTasks: config.maxTasks, maxBytes: config.maxListBytes });
    if (warning !== undefined) console.warn(logEvent("warn", warning));
  }

  /** The tasks after `afterId` of list `instance`, or from the first task when `instance` is not this list's. */
  changes(instance: string | undefined, afterId: number): ListChanges {
    const from = instance === this.#list.instance ? afterId : 0;
    return {
      instance: this.#list.instance,
      tasks: this.#list.usage.tasks,
      afterId: from,
      added: this.#list.tasksAfter(from, CHANGES_CHUNK_BYTES),
    };
  }

  /**
   * Appends a task whose title comes as the UTF-8 of its JSON string literal (exact for any title,
   * and at most as large as the task's own JSON), unless it would break `limits`.
   */
  append(titleJson: Uint8Array, completed: boolean, limits: ListLimits): { id: number } | { full: "tasks" | "bytes" } {
    const title: unknown = JSON.parse(new TextDecoder().decode(titleJson));
    if (typeof title !== "string") throw new TypeError("The title must come as a JSON string literal");
    const appended = this.#list.append({ title, completed }, limits);
    return "full" in appended ? appended : { id: appended.task.id };
  }
}

/**
 * The list as a Worker reaches it: typed RPC calls to the deployment's {@link TaskListObject}. The
 * isolate keeps its own copy of the list and, on every read, asks the object only for the tasks
 * added since, so what crosses between them follows the change, not the list's length.
 */
export class DurableObjectStore implements TaskStore {
  readonly #namespace: DurableObjectNamespace<TaskListObject>;
  readonly #mirror = new ListMirror();

  constructor(namespace: DurableObjectNamespace<TaskListObject>) {
    this.#namespace = namespace;
  }

  read(known: readonly string[]): Promise<ListRead> {
    return this.#mirror.read(known, (instance, afterId) => this.#stub().changes(instance, afterId));
  }

  async append(task: NewTask, limits: ListLimits): Promise<AppendResult> {
    const titleJson = new TextEncoder().encode(JSON.stringify(task.title));
    // A title larger than the whole list may be can never fit; refusing it here keeps RPC values
    // within the list's limit, far under RPC's cap.
    if (titleJson.byteLength + 2 > limits.maxBytes) return { full: "bytes" };
    const result = await this.#stub().append(titleJson, task.completed, limits);
    return "full" in result ? { full: result.full } : { task: { id: result.id, ...task } };
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
    iterate: (sql, ...params) => storage.sql.exec(sql, ...params),
    transaction: (work) => storage.transactionSync(work),
  };
}
