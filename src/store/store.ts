// The seam between the app and where the list lives: what every store does, in the list's own
// terms. Nothing here knows HTTP; the app decides what a read means for a response.
import type { ListLimits } from "../config.ts";
import type { ListVersion } from "../list/encoded-list.ts";
import type { NewTask } from "../list/task.ts";
import type { AppendResult, IdempotencyKey, IfMatch, RemoveResult, TaskPatch, UpdateResult } from "../list/writes.ts";

export type {
  AppendResult,
  IdempotencyKey,
  IfMatch,
  RemoveResult,
  TaskPatch,
  UpdateResult,
  WriteResult,
} from "../list/writes.ts";

/**
 * Where the list lives. Every store keeps the same list the same way: ids one after another and
 * never given twice, one change number per change, each write checked in the same atomic step that
 * makes it.
 */
export interface TaskStore {
  /**
   * The list as it is when the read starts, or later: a version whose JSON, the tasks after any
   * id, one task with its version, and the changes after any change number, are read from it.
   * Synchronous when the list is in this process's memory.
   */
  read(): ListVersion | Promise<ListVersion>;
  /**
   * Appends a task with the next id (one more than the highest ever given) in one atomic step,
   * unless the list would then break one of `limits`, in which case it adds nothing and says which
   * limit. With `key`, a key the list remembers returns its task as first returned (or
   * refused, for another task) before any limit; a new one is remembered in the same step.
   */
  append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): Promise<AppendResult>;
  /**
   * Applies `patch` to task `id` in one atomic step with its checks, in this order: the task
   * (not-found, gone), `ifMatch` (precondition-failed), then `limits` (full, when the new JSON would
   * take the list past MAX_LIST_BYTES). A patch that changes nothing is no change.
   */
  update(id: number, patch: TaskPatch, limits: ListLimits, ifMatch?: IfMatch): Promise<UpdateResult>;
  /** Deletes task `id` in one atomic step with its checks: the task (not-found, gone), then `ifMatch`. */
  remove(id: number, ifMatch?: IfMatch): Promise<RemoveResult>;
  /**
   * Resolves once the list's last change is after change `change` (and, with `bytesPast`, once its
   * `changedBytes` is past `bytesPast`: a reader that waits for that is not woken by each change
   * on its way, though a store may wake it early), at once if it already is, or when `signal` aborts; a reader then reads again. Each store is told in its own way
   * (in-process, by the Durable Object, by the database), and may resolve early for nothing. Call
   * it from the reader's own request: on Workers the wait is made of that request's own timers and I/O.
   */
  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void>;
}
