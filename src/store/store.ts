// The seam between the app and where the list lives: what every store does, in the list's own
// terms. Nothing here knows HTTP; the app decides what a read means for an answer.
import type { ListLimits } from "../config.ts";
import type { ListVersion } from "../list/encoded-list.ts";
import type { Limit, ListUsage } from "../list/limits.ts";
import type { NewTask, Task } from "../list/task.ts";

/**
 * A POST's Idempotency-Key and what it asked for. The list remembers it with the task it added, in
 * the same atomic step, so that the same request again adds nothing and gets the same task.
 */
export interface IdempotencyKey {
  /** Whose key it is: each write token has keys of its own ("" when there are none). */
  readonly scope: string;
  readonly key: string;
  /** A hash of the task's title and completed: the same key with another task is refused. */
  readonly fingerprint: string;
}

/**
 * What an append did: the task it added, with its JSON as the list holds it; the task an earlier
 * append with the same key added (replayed); the key refused, sent before with another task; or
 * the limit that kept it out.
 */
export type AppendResult =
  | { readonly outcome: "added" | "replayed"; readonly task: Task; readonly json: string; readonly usage: ListUsage }
  | { readonly outcome: "key-reused"; readonly usage: ListUsage }
  | { readonly outcome: "full"; readonly limit: Limit; readonly usage: ListUsage };

/**
 * Where the list lives. Every store keeps the same list the same way: append-only, ids one after
 * another, each append checked against the limits in the same atomic step that adds the task.
 */
export interface TaskStore {
  /**
   * The list as it is when the read starts, or later: a version whose JSON, and the tasks after
   * any id, are read from it. Synchronous when the list is in this process's memory.
   */
  read(): ListVersion | Promise<ListVersion>;
  /**
   * Appends a task with the next id (the last id plus 1) in one atomic step, unless the list would
   * then break one of `limits`, in which case it adds nothing and says which limit. With `key`, a
   * key the list remembers is answered with its task (or refused, for another task) before any
   * limit; a new one is remembered in the same step as the task, and forgotten if nothing is added.
   */
  append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): Promise<AppendResult>;
  /**
   * Resolves once the list may hold tasks after `lastId`, at once if it already does, or when
   * `signal` aborts; a reader then reads again. Each store is told in its own way (in-process, by
   * the Durable Object, by the database), and may resolve early for nothing. Call it from the
   * reader's own request: on Workers the wait is made of that request's own timers and I/O.
   */
  nextChange(lastId: number, signal: AbortSignal): Promise<void>;
}
