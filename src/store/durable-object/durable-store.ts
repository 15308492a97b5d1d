// The list as a Worker reaches it in its Durable Object: a copy in the isolate, kept current by
// asking the object only for what changed since.
import type { ListLimits } from "../../config.ts";
import { StoreUnavailableError } from "../../errors.ts";
import type { ListVersion } from "../../list/encoded-list.ts";
import type { NewTask } from "../../list/task.ts";
import { type ListChanges, ListMirror } from "../mirror.ts";
import type * as seam from "../store.ts";

/** The object's RPC methods, as the Worker calls them. */
export interface ListObjectRpc {
  /** What changed after change `after` of list `instance` (see `ChangesSince`). */
  changes(instance: string | undefined, after: number): ListChanges | Promise<ListChanges>;
  /**
   * Appends a task whose title comes as the UTF-8 of its JSON string literal (exact for any title,
   * and at most as large as the task's own JSON), unless it would break `limits`.
   */
  append(
    titleJson: Uint8Array,
    completed: boolean,
    limits: ListLimits,
    key?: seam.IdempotencyKey,
  ): seam.AppendResult | Promise<seam.AppendResult>;
  /**
   * Applies a patch to task `id`: a title comes as the UTF-8 of its JSON string literal, as for an
   * append; `undefined` leaves a field as it is.
   */
  update(
    id: number,
    titleJson: Uint8Array | undefined,
    completed: boolean | undefined,
    limits: ListLimits,
    ifMatch: seam.IfMatch,
  ): seam.UpdateResult | Promise<seam.UpdateResult>;
  /** Deletes task `id`. */
  remove(id: number, ifMatch: seam.IfMatch): seam.RemoveResult | Promise<seam.RemoveResult>;
  /**
   * Resolves true once the list's last change is after `change`, or false after `waitMs` or once
   * {@link stopWaiting} is called with the same `key`.
   */
  nextChange(change: number, waitMs: number, key: string): Promise<boolean>;
  /** Ends the wait of {@link nextChange} made with `key`: its reader has gone. */
  stopWaiting(key: string): void | Promise<void>;
  /** Takes a WebSocket subscriber: the object holds subscribers' sockets itself, so they can hibernate. */
  fetch(request: Request): Promise<Response>;
}

/** The binding of the object's class, as far as the store uses it. */
export interface ListObjectNamespace {
  getByName(name: string): ListObjectRpc;
}

/** The name of the deployment's one list object. */
const LIST_NAME = "default";
/** How long one call waits in the object for a change before it is asked again. */
const WAIT_MS = 30_000;

/**
 * The list as a Worker reaches it: typed RPC calls to the deployment's object. The isolate keeps
 * its own copy of the list and, on every read, asks the object only for the tasks added since, so
 * what crosses between them follows the change, not the list's length. A call that fails for a
 * passing reason (the object reset by a deploy, a lost connection, an overloaded object) is a
 * store that cannot be reached: 503, try again. What the object's own code throws stays a 500.
 */
export class DurableObjectStore implements seam.TaskStore {
  readonly #namespace: ListObjectNamespace;
  readonly #mirror = new ListMirror();

  constructor(namespace: ListObjectNamespace) {
    this.#namespace = namespace;
  }

  read(): Promise<ListVersion> {
    return this.#call(() => this.#mirror.read(async (instance, after) => this.#stub().changes(instance, after)));
  }

  async append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult> {
    const titleJson = new TextEncoder().encode(JSON.stringify(task.title));
    // A title larger than the whole list may be can never fit; refusing it here keeps RPC values
    // within the list's limit, far under RPC's cap.
    if (titleJson.byteLength + 2 > limits.maxBytes) {
      return { outcome: "full", limit: "bytes", usage: this.#mirror.current.usage };
    }
    return this.#call(() => this.#stub().append(titleJson, task.completed, limits, key));
  }

  async update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult> {
    const titleJson = patch.title === undefined ? undefined : new TextEncoder().encode(JSON.stringify(patch.title));
    // A title larger than the whole list may be can never fit: refused here, RPC values stay small.
    if (titleJson !== undefined && titleJson.byteLength + 2 > limits.maxBytes) {
      const known = this.#mirror.current.task(id);
      if (known.outcome === "found") return { outcome: "full", limit: "bytes", usage: this.#mirror.current.usage };
    }
    return this.#call(() => this.#stub().update(id, titleJson, patch.completed, limits, ifMatch));
  }

  remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult> {
    return this.#call(() => this.#stub().remove(id, ifMatch));
  }

  async nextChange(change: number, signal: AbortSignal): Promise<void> {
    if (this.#mirror.current.change > change || signal.aborted) return;
    // A reader that goes away tells the object, which would otherwise hold its wait for WAIT_MS.
    const key = crypto.randomUUID();
    const stop = () => {
      this.#call(() => this.#stub().stopWaiting(key)).catch(() => {});
    };
    signal.addEventListener("abort", stop, { once: true });
    try {
      while (!signal.aborted) {
        if (await this.#call(() => this.#stub().nextChange(change, WAIT_MS, key))) return;
      }
    } finally {
      signal.removeEventListener("abort", stop);
    }
  }

  /**
   * Hands a WebSocket subscriber at `cursor` to the object, which holds it through the Hibernation
   * API and counts its subscribers against `maxSubscribers`.
   */
  openSocket(request: Request, cursor: number, maxSubscribers: number): Promise<Response> {
    const url = `https://task-list-object/follow?after=${cursor}&max=${maxSubscribers}`;
    return this.#call(() => this.#stub().fetch(new Request(url, { headers: request.headers })));
  }

  #stub(): ListObjectRpc {
    return this.#namespace.getByName(LIST_NAME);
  }

  async #call<T>(call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!isPassing(error)) throw error;
      throw new StoreUnavailableError(`The list's Durable Object cannot be reached: ${String(error)}`, {
        cause: error,
      });
    }
  }
}

/**
 * Whether a failed call is worth trying again: Cloudflare marks such errors `retryable` (the
 * object was reset, the connection to it lost) or `overloaded` (too many requests to one object).
 */
function isPassing(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { retryable, overloaded } = error as { retryable?: unknown; overloaded?: unknown };
  return retryable === true || overloaded === true;
}
