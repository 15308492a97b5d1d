// The deployment's list in a SQLite-backed Durable Object, reached by typed RPC calls: only the
// Worker's main module loads it, since it extends cloudflare:workers' DurableObject.
import { DurableObject } from "cloudflare:workers";
import type { ListLimits } from "../../config.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges } from "../mirror.ts";
import { type SqliteConnection, SqliteList } from "../sqlite/sqlite-list.ts";
import type { ListObjectRpc, ObjectAppendResult } from "./durable-store.ts";

/**
 * A deployment's list. It keeps no copy of the list in memory: each caller keeps its own and asks
 * only for the tasks it lacks, so the object's memory and each RPC value stay small however long
 * the list grows.
 */
export class TaskListObject extends DurableObject implements ListObjectRpc {
  // Built synchronously in the constructor, since the SQL API is synchronous: no request can reach
  // the object before the list is open, which is what blockConcurrencyWhile would otherwise ensure.
  readonly #list: SqliteList;
  /** Callers waiting in {@link nextChange}; an append wakes them all. */
  readonly #waiting = new Set<() => void>();

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#list = new SqliteList(storageConnection(ctx.storage));
  }

  changes(instance: string | undefined, afterId: number): ListChanges {
    const from = instance === this.#list.instance ? afterId : 0;
    return {
      instance: this.#list.instance,
      tasks: this.#list.usage.tasks,
      afterId: from,
      added: this.#list.tasksAfter(from, CHANGES_CHUNK_BYTES),
    };
  }

  append(titleJson: Uint8Array, completed: boolean, limits: ListLimits): ObjectAppendResult {
    const title: unknown = JSON.parse(new TextDecoder().decode(titleJson));
    if (typeof title !== "string") throw new TypeError("The title must come as a JSON string literal");
    const appended = this.#list.append({ title, completed }, limits);
    if ("full" in appended) return { full: appended.full, usage: this.#list.usage };
    for (const wake of this.#waiting) wake();
    return { id: appended.task.id, usage: this.#list.usage };
  }

  nextChange(lastId: number, waitMs: number): Promise<boolean> {
    if (this.#list.lastId > lastId) return Promise.resolve(true);
    return new Promise((done) => {
      const finish = (changed: boolean) => {
        this.#waiting.delete(wake);
        clearTimeout(timer);
        done(changed);
      };
      const wake = () => finish(true);
      const timer = setTimeout(() => finish(false), waitMs);
      this.#waiting.add(wake);
    });
  }
}

function storageConnection(storage: DurableObjectStorage): SqliteConnection {
  return {
    query: (sql, ...params) => storage.sql.exec(sql, ...params).toArray(),
    iterate: (sql, ...params) => storage.sql.exec(sql, ...params),
    transaction: (work) => storage.transactionSync(work),
  };
}
