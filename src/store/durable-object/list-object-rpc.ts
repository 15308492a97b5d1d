// The typed RPC methods of a list's Durable Object, as a Worker's copy and the directory object call
// them.
import type { ListLimits } from "../../config.ts";
import type { ListChanges } from "../../engine/mirror.ts";
import type * as seam from "../../engine/task-store.ts";
import type { ListRecord } from "../../list/list-directory.ts";
import type { ListKey } from "../../list/list-keys.ts";
import type { NewTask } from "../../list/task.ts";
import type { ListObjectKeys } from "./object-keys.ts";
import type { Stored } from "./stored.ts";

/**
 * What a list's object answers a copy: the changes, whether the list lives, and, when asked with a
 * key's hash, that key as the object holds it now (null: none).
 */
export type ListObjectChanges = ListChanges & { readonly list: seam.ListState; readonly key?: ListKey | null };

/** A list object's RPC methods, as the Worker and the directory object call them. */
export interface ListObjectRpc extends ListObjectKeys {
  /** What changed after change `after` of list `instance` (see `ChangesSince`), the list's state, and the key whose hash is `keyHash`. */
  changes(
    instance: string | undefined,
    after: number,
    keyHash?: string,
  ): ListObjectChanges | Promise<ListObjectChanges>;
  /** Appends `task` unless it would break `limits`. */
  append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Stored<seam.AppendResult | seam.ListMissing>;
  /** Applies `patch` to task `id`. */
  update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch: seam.IfMatch,
  ): Stored<seam.UpdateResult | seam.ListMissing>;
  /** Deletes task `id`. */
  remove(id: number, ifMatch: seam.IfMatch): Stored<seam.RemoveResult | seam.ListMissing>;
  /**
   * Resolves true once the list's last change is after `change` (with `bytesAfter`, once the changes
   * after it carry more than that many bytes: a subscriber that stopped reading waits to be cut off,
   * not woken by each change), or false after `waitMs` or once {@link stopWaiting} is called with the same `key`.
   */
  nextChange(change: number, waitMs: number, key: string, bytesAfter?: number): Promise<boolean>;
  /** Ends the wait of {@link nextChange} made with `key`: its reader has gone. */
  stopWaiting(key: string): void | Promise<void>;
  /** Takes a WebSocket subscriber: the object holds subscribers' sockets itself, so they can hibernate. */
  fetch(request: Request): Promise<Response>;
  /** Whether the list lives (the directory object asks the default list's, once). */
  state(): seam.ListState | Promise<seam.ListState>;
  /** Makes the list live as `record`: called by the directory object alone, again after a failure. */
  create(record: ListRecord): Stored<seam.ListState>;
  /** Retitles the list as `record`: called by the directory object alone. */
  retitle(record: ListRecord): Stored<seam.ListState>;
  /** Deletes the list: called by the directory object alone. */
  delete(): Stored<seam.ListState>;
}

/** The binding of the object's class, as far as the store uses it. */
export interface ListObjectNamespace {
  getByName(name: string): ListObjectRpc;
}
