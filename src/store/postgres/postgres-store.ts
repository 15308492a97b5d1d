// One list in a PostgreSQL schema, as a request uses it: its reads from this process's copy, its
// writes one call of their SQL function each.
import type { ListLimits } from "../../config.ts";
import { encodeTask } from "../../list/encoded-list.ts";
import type { Limit, ListUsage } from "../../list/limits.ts";
import { type NewTask, type Task, taskJson } from "../../list/task.ts";
import type * as seam from "../store.ts";
import type { ListCopy } from "./list-copy.ts";
import { type PostgresDatabase, PREPARED } from "./postgres-database.ts";

/**
 * List `name` in a PostgreSQL schema shared by every process and isolate that uses it, whether or
 * not it exists. A read goes to this process's copy of the list ({@link ListCopy}), which asks only
 * for what changed after its last change with the list's title and version, in one query: a
 * current copy costs one small query and responds 304. Each write is one call of its function
 * (append-sql.ts, edit-sql.ts), which locks the list's own row until it commits, so ids are
 * contiguous, commits happen in change order, a reader asking for the changes after its last never
 * skips one that commits late, and a write to another list never waits for it.
 */
export class PostgresStore implements seam.TaskStore {
  readonly #db: PostgresDatabase;
  readonly #name: string;
  readonly #copy: () => ListCopy;

  /** `copy` gives this process's copy of the list, asked for at each read: copies may be dropped between. */
  constructor(db: PostgresDatabase, name: string, copy: () => ListCopy) {
    this.#db = db;
    this.#name = name;
    this.#copy = copy;
  }

  read(): Promise<seam.ListRead> {
    return this.#copy().read();
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    return this.#copy().nextChange(change, signal, bytesPast);
  }

  append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult | seam.ListMissing> {
    const titleJson = JSON.stringify(task.title);
    // The task's JSON as the list shows it, but for its id, whose digits only the database knows.
    const rest = encodeTask({ id: 0, ...task }).byteLength - 1;
    const limitsAndTask = [
      this.#name,
      rest,
      limits.maxTasks,
      limits.maxBytes,
      titleJson,
      task.completed,
      this.#db.schema,
    ];
    return this.#db.run("write", async (sql) => {
      const keyed = key && [...limitsAndTask, key.scope, key.key, key.fingerprint, limits.maxKeys];
      const row = first(
        keyed === undefined
          ? await sql.unsafe(this.#db.sql.append, limitsAndTask, PREPARED)
          : await sql.unsafe(this.#db.sql.appendKeyed, keyed, PREPARED),
      );
      const outcome = String(row.outcome) as seam.AppendResult["outcome"] | seam.ListMissing["outcome"];
      const usage = usageOf(row);
      if (outcome === "list-gone" || outcome === "list-not-found") return { outcome };
      if (outcome === "key-reused") return { outcome, usage };
      if (outcome === "full") return { outcome, limit: String(row.full_limit) as Limit, usage };
      if (outcome === "replayed") {
        const json = String(row.task_json);
        return { outcome, task: JSON.parse(json) as Task, json, usage };
      }
      const created = { id: Number(row.id), ...task };
      return { outcome: "added", task: created, json: taskJson(created), usage };
    });
  }

  update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult | seam.ListMissing> {
    const titleJson = patch.title === undefined ? null : JSON.stringify(patch.title);
    const versions = ifMatch === undefined ? null : JSON.stringify(ifMatch);
    const parameters = [this.#name, id, titleJson, patch.completed ?? null, versions, limits.maxBytes, this.#db.schema];
    return this.#db.run("write", async (sql) => {
      const row = first(await sql.unsafe(this.#db.sql.update, parameters, PREPARED));
      const outcome = String(row.outcome) as seam.UpdateResult["outcome"] | seam.ListMissing["outcome"];
      const usage = usageOf(row);
      if (outcome === "list-gone" || outcome === "list-not-found") return { outcome };
      if (outcome === "updated" || outcome === "unchanged") {
        const json = String(row.task_json);
        return { outcome, task: JSON.parse(json) as Task, json, version: String(row.version), usage };
      }
      if (outcome === "full") return { outcome, limit: "bytes", usage };
      return { outcome, usage };
    });
  }

  remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult | seam.ListMissing> {
    return this.#db.run("write", async (sql) => {
      const versions = ifMatch === undefined ? null : JSON.stringify(ifMatch);
      const parameters = [this.#name, id, versions, this.#db.schema];
      const row = first(await sql.unsafe(this.#db.sql.remove, parameters, PREPARED));
      const outcome = String(row.outcome) as seam.RemoveResult["outcome"] | seam.ListMissing["outcome"];
      if (outcome === "list-gone" || outcome === "list-not-found") return { outcome };
      return { outcome, usage: usageOf(row) };
    });
  }
}

/** The one row a write's function returns. */
function first(rows: readonly Record<string, unknown>[]): Record<string, unknown> {
  const [row] = rows;
  if (row === undefined) throw new Error("A list's write function returned no row");
  return row;
}

/** The list's count and bytes, as the write's function left them. */
function usageOf(row: Record<string, unknown>): ListUsage {
  return { tasks: Number(row.task_count), bytes: Number(row.json_bytes) };
}
