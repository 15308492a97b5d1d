// The seam between the app and where the list lives: what every store does, in the list's own
// terms. Nothing here knows HTTP; the app decides what a read means for a response.
import type { ListLimits } from "../config.ts";
import type { DirectoryLimits, ListIfMatch, ListResult, PutConditions } from "../list/list-directory.ts";
import type { ListKey } from "../list/list-keys.ts";
import type { ListVersion } from "../list/list-version.ts";
import type { NewTask } from "../list/task.ts";
import type {
  AppendResult,
  IdempotencyKey,
  IfMatch,
  ListMissing,
  RemoveResult,
  TaskPatch,
  UpdateResult,
} from "../list/writes.ts";

// What a write asks for and returns is the seam's too: stores and routes name it from here.
export type * from "../list/writes.ts";

/**
 * Whether the list a store serves exists: live, with its title and its own version (the ETag of
 * `/lists/{name}`), deleted (`gone`: 410), or never created (`not-found`: 404).
 */
export type ListState =
  | { readonly state: "live"; readonly title: string; readonly version: string }
  | { readonly state: "gone" | "not-found" };

/**
 * A read of a list: its version, and whether it exists. A store that holds one list only, which
 * always exists, may leave `list` out: it is then the default list, never retitled.
 */
export interface ListRead {
  readonly version: ListVersion;
  readonly list?: ListState;
}

/**
 * Where the list lives. Every store keeps the same list the same way: ids one after another and
 * never given twice, one change number per change, each write checked in the same atomic step that
 * makes it.
 */
export interface TaskStore {
  /**
   * The list as it is when the read starts, or later: a version whose JSON, the tasks after any
   * id, one task with its version, and the changes after any change number, are read from it.
   * Synchronous when the list is in this process's memory. A list that was deleted, or never
   * created, is read as empty, with `list` saying so.
   */
  read(): ListRead | Promise<ListRead>;
  /**
   * Appends a task with the next id (one more than the highest ever given) in one atomic step,
   * unless the list would then break one of `limits`, in which case it adds nothing and says which
   * limit. With `key`, a key the list remembers returns its task as first returned (or
   * refused, for another task) before any limit; a new one is remembered in the same step.
   */
  append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): Promise<AppendResult | ListMissing>;
  /**
   * Applies `patch` to task `id` in one atomic step with its checks, in this order: the task
   * (not-found, gone), `ifMatch` (precondition-failed), then `limits` (full, when the new JSON would
   * take the list past MAX_LIST_BYTES). A patch that changes nothing is no change.
   */
  update(id: number, patch: TaskPatch, limits: ListLimits, ifMatch?: IfMatch): Promise<UpdateResult | ListMissing>;
  /** Deletes task `id` in one atomic step with its checks: the task (not-found, gone), then `ifMatch`. */
  remove(id: number, ifMatch?: IfMatch): Promise<RemoveResult | ListMissing>;
  /**
   * Whether this process already knows, without asking where the list lives, that the list lives
   * and, with `task`, holds that task at a version `ifMatch` allows: the checks a write makes before
   * its body is read then pass at once, and the write's own atomic step checks again. False when
   * unsure, and always safe; a store whose reads are in memory need not say.
   */
  knows?(task?: number, ifMatch?: IfMatch): boolean;
  /**
   * Whether the list lives, with its title and own version, without its tasks: what
   * `/lists/{name}` answers from. A store that would copy the list from elsewhere to read it (a
   * Durable Object, PostgreSQL) asks for its state alone; one that holds the list reads it.
   */
  state?(): Promise<ListState>;
  /**
   * Resolves once the list's last change is after change `change` (and, with `bytesPast`, once its
   * `changedBytes` is past `bytesPast`: a reader that waits for that is not woken by each change
   * on its way, though a store may wake it early), at once if it already is, or when `signal` aborts; a reader then reads again. Each store is told in its own way
   * (in-process, by the Durable Object, by the database), and may resolve early for nothing. Call
   * it from the reader's own request: on Workers the wait is made of that request's own timers and I/O.
   * A deletion of the list is a change: it wakes every reader.
   */
  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void>;
  /** The list's keys, which live beside its tasks and die with the list. */
  readonly keys: KeyRows;
}

/** What adding a key returns: added, or `full` when the list holds `max` keys already. */
export type KeyAdded = { readonly outcome: "added" } | { readonly outcome: "full" } | ListMissing;
/** What removing a key returns. */
export type KeyRemoved = { readonly outcome: "removed" } | { readonly outcome: "not-found" } | ListMissing;

/**
 * A list's keys as rows (the rules are `list/list-keys.ts`'s): they live and die with their list,
 * and a list made again under a deleted name holds none.
 */
export interface KeyRows {
  /** Every key of the list, oldest first. */
  all(): Promise<readonly ListKey[] | ListMissing>;
  /** Adds `row` in one atomic step with the check that the list holds fewer than `max` keys. */
  add(row: ListKey, max: number): Promise<KeyAdded>;
  /** Removes the key `id`: from the answer on, it opens nothing. */
  remove(id: string): Promise<KeyRemoved>;
  /** The key of a live list whose SHA-256 is `hash`, if it holds one. */
  byHash(hash: string): ListKey | undefined | Promise<ListKey | undefined>;
  /**
   * Where the store is told of every process's revocations (PostgreSQL with LISTEN, a list's
   * Durable Object waking the calls that wait in it): calls `listener` whenever the list's keys may
   * have changed, until the answer is called, doing its I/O from the caller's own request. A store
   * without it is asked again on a timer instead.
   */
  readonly onChange?: (listener: () => void) => () => void;
}

/** The lists that exist, in creation order, as `/lists` serves them, and the directory's version. */
export interface Directory {
  /** Changes when a list is created, retitled or deleted, and only then; safe between an ETag's quotes. */
  readonly version: string;
  /** The JSON array of the lists, each `{"name","title"}`. */
  readonly json: string;
}

/**
 * What a write to the directory returns: a {@link ListResult} (decided by `list/list-directory.ts`
 * for every store), or `unsupported` from a store that holds the default list only.
 */
export type ListWriteResult = ListResult | { readonly outcome: "unsupported" };

/**
 * Every list of a deployment. The directory (the enumeration of lists) is touched only to create,
 * retitle, delete and enumerate lists: a request to one list's tasks goes to `list(name)` alone,
 * whose store knows by itself whether its list exists, was deleted or was never created. So a
 * store may keep each list apart (one Durable Object per list) and the directory apart again.
 */
export interface TaskLists {
  /** The lists that exist, as `GET /lists` serves them. */
  directory(): Directory | Promise<Directory>;
  /**
   * The store of list `name` (a valid name), whether or not it exists: its `read()` says which.
   * Asked for per request, never at start (Workers allow no random values then), and cheap.
   */
  list(name: string): TaskStore;
  /** Creates a list with a new random name; with `key`, once (a known key replays its list). */
  create(title: string, limits: DirectoryLimits, key?: IdempotencyKey): Promise<ListWriteResult>;
  /** Creates list `name`, or replaces its title, under `conditions`. */
  put(name: string, title: string, conditions: PutConditions, limits: DirectoryLimits): Promise<ListWriteResult>;
  /** Applies a merge patch of the title (undefined: none) with `ifMatch`. */
  patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<ListWriteResult>;
  /**
   * Deletes list `name` and its tasks with `ifMatch`: its subscribers are woken and read it gone,
   * writes to it after this answer `list-gone`, and the name made again continues its ids and
   * change numbers.
   */
  remove(name: string, ifMatch: ListIfMatch): Promise<ListWriteResult>;
}
