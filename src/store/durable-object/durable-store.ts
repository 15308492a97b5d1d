// A list as a Worker reaches it in its own Durable Object: a copy in the isolate, kept current by
// asking the object only for what changed since.
import type { ListLimits } from "../../config.ts";
import { StoreUnavailableError } from "../../errors.ts";
import type { ListVersion } from "../../list/encoded-list.ts";
import type { ListRecord } from "../../list/list-directory.ts";
import { DEFAULT_LIST } from "../../list/list-names.ts";
import type { NewTask } from "../../list/task.ts";
import { missingRead, StatedVersion } from "../list-read.ts";
import { type ListChanges, ListMirror } from "../mirror.ts";
import type * as seam from "../store.ts";
import { type ListObjectKeys, objectKeyRows } from "./object-keys.ts";
import { OwnWrites } from "./own-writes.ts";
import { type StorageFailed, type Stored, unlessFailed } from "./stored.ts";

/** What a list's object answers a copy: the changes, and whether the list lives. */
export type ListObjectChanges = ListChanges & { readonly list: seam.ListState };

/** A list object's RPC methods, as the Worker and the directory object call them. */
export interface ListObjectRpc extends ListObjectKeys {
  /** What changed after change `after` of list `instance` (see `ChangesSince`), and the list's state. */
  changes(instance: string | undefined, after: number): ListObjectChanges | Promise<ListObjectChanges>;
  /**
   * Appends a task whose title comes as the UTF-8 of its JSON string literal (exact for any title,
   * and at most as large as the task's own JSON), unless it would break `limits`.
   */
  append(
    titleJson: Uint8Array,
    completed: boolean,
    limits: ListLimits,
    key?: seam.IdempotencyKey,
  ): Stored<seam.AppendResult | seam.ListMissing>;
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
  ): Stored<seam.UpdateResult | seam.ListMissing>;
  /** Deletes task `id`. */
  remove(id: number, ifMatch: seam.IfMatch): Stored<seam.RemoveResult | seam.ListMissing>;
  /**
   * Resolves true once the list's last change is after `change`, or false after `waitMs` or once
   * {@link stopWaiting} is called with the same `key`.
   */
  nextChange(change: number, waitMs: number, key: string): Promise<boolean>;
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

/** How long one call waits in the object for a change before it is asked again. */
const WAIT_MS = 30_000;

/**
 * A list as a Worker reaches it: typed RPC calls to the list's own object. The isolate keeps
 * its own copy of the list and, on every read, asks the object only for the tasks added since, so
 * what crosses between them follows the change, not the list's length. A call that fails for a
 * passing reason (the object reset by a deploy, a lost connection, an overloaded object) is a
 * store that cannot be reached: 503, try again. What the object's own code throws stays a 500.
 */
export class DurableObjectStore implements seam.TaskStore {
  readonly #namespace: ListObjectNamespace;
  /** The list's name, which names its object. */
  readonly name: string;
  readonly #mirror = new ListMirror();
  #read: { readonly of: ListVersion; readonly state: seam.ListState; readonly as: seam.ListRead } | undefined;
  /** Whether the list lived at the last read. */
  #live = false;
  readonly #own = new OwnWrites();
  readonly #onRead: ((store: DurableObjectStore) => void) | undefined;

  /** List `name` (the default list without); `onRead` is told after each read, once the copy is current. */
  constructor(
    namespace: ListObjectNamespace,
    name = DEFAULT_LIST,
    options: { readonly onRead?: (store: DurableObjectStore) => void } = {},
  ) {
    this.#namespace = namespace;
    this.name = name;
    this.#onRead = options.onRead;
  }

  /** The bytes of the list the copy holds. */
  get bytes(): number {
    return this.#mirror.current.usage.bytes;
  }

  async read(): Promise<seam.ListRead> {
    const mark = this.#own.mark;
    const seen: { list: seam.ListState } = { list: { state: "not-found" } };
    const version = await this.#call(() =>
      this.#mirror.read(async (instance, after) => {
        const reply = await this.#stub().changes(instance, after);
        seen.list = reply.list;
        return reply;
      }),
    );
    this.#onRead?.(this);
    const state = seen.list;
    this.#live = state.state === "live";
    this.#own.caughtUp(mark);
    if (state.state !== "live") return missing(state.state);
    // One wrapper per version and state of the list, not per read.
    const last = this.#read;
    if (last?.of === version && sameState(last.state, state)) return last.as;
    this.#read = { of: version, state, as: new StatedVersion(version, state) };
    return this.#read.as;
  }

  async state(): Promise<seam.ListState> {
    return this.#call(() => this.#stub().state());
  }

  async append(
    task: NewTask,
    limits: ListLimits,
    key?: seam.IdempotencyKey,
  ): Promise<seam.AppendResult | seam.ListMissing> {
    const titleJson = new TextEncoder().encode(JSON.stringify(task.title));
    // A title larger than the whole list may be can never fit; refusing it here keeps RPC values
    // within the list's limit, far under RPC's cap.
    if (titleJson.byteLength + 2 > limits.maxBytes) {
      return { outcome: "full", limit: "bytes", usage: this.#mirror.current.usage };
    }
    const result = await this.#call(() => this.#stub().append(titleJson, task.completed, limits, key));
    if (result.outcome === "list-gone" || result.outcome === "list-not-found") this.#own.list();
    return result;
  }

  async update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult | seam.ListMissing> {
    const titleJson = patch.title === undefined ? undefined : new TextEncoder().encode(JSON.stringify(patch.title));
    // A title larger than the whole list may be can never fit: refused here, RPC values stay small.
    if (titleJson !== undefined && titleJson.byteLength + 2 > limits.maxBytes) {
      const known = this.#mirror.current.task(id);
      if (known.outcome === "found") return { outcome: "full", limit: "bytes", usage: this.#mirror.current.usage };
    }
    let result: seam.UpdateResult | seam.ListMissing;
    try {
      result = await this.#call(() => this.#stub().update(id, titleJson, patch.completed, limits, ifMatch));
    } catch (error) {
      // The object may have made the edit without its answer coming back: the task's version is not known.
      this.#own.task(id, undefined);
      throw error;
    }
    this.#own.wrote(id, result);
    return result;
  }

  async remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult | seam.ListMissing> {
    // Not there as far as this isolate knows from now on: the object may delete it without its answer coming back.
    this.#own.task(id, undefined);
    const result = await this.#call(() => this.#stub().remove(id, ifMatch));
    this.#own.wrote(id, result);
    return result;
  }

  /**
   * Whether the copy, with this isolate's writes since its last read, says the list lives and holds
   * `task` at a version `ifMatch` allows: a write's checks before its body then need no call.
   */
  knows(task?: number, ifMatch?: seam.IfMatch): boolean {
    return this.#own.knows(this.#mirror.current, this.#live, task, ifMatch);
  }

  /** The list itself was deleted or made again through this isolate: the copy no longer says whether it lives. */
  listChanged(): void {
    this.#own.list();
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
   * API and counts its subscribers against `maxSubscribers`; with the hash of the list key that let
   * it in, until that key is revoked or expires.
   */
  openSocket(request: Request, cursor: number, maxSubscribers: number, keyHash?: string): Promise<Response> {
    const key = keyHash === undefined ? "" : `&key=${keyHash}`;
    const url = `https://task-list-object/follow?after=${cursor}&max=${maxSubscribers}${key}`;
    return this.#call(() => this.#stub().fetch(new Request(url, { headers: request.headers })));
  }

  /** The list's keys, in its object: each of their methods is one call to it. */
  readonly keys: seam.KeyRows = objectKeyRows((work) => this.#call(() => work(this.#stub())));

  #stub(): ListObjectRpc {
    return this.#namespace.getByName(this.name);
  }

  #call<T>(call: () => T | StorageFailed | Promise<T | StorageFailed>): Promise<T> {
    return objectCall("The list's Durable Object", call);
  }
}

/**
 * Calls an object, making a failure for a passing reason a {@link StoreUnavailableError} (503, try
 * again) that names `what` was called; what the object's own code throws stays as it is (500).
 */
export async function objectCall<T>(
  what: string,
  call: () => T | StorageFailed | Promise<T | StorageFailed>,
): Promise<T> {
  let answer: T | StorageFailed;
  try {
    answer = await call();
  } catch (error) {
    if (!isPassing(error)) throw error;
    throw new StoreUnavailableError(`${what} cannot be reached: ${String(error)}`, { cause: error });
  }
  return unlessFailed(what, answer);
}

const missingReads = new Map<"gone" | "not-found", seam.ListRead>();
/** The read of a list that does not live: one for each state, made once. */
function missing(state: "gone" | "not-found"): seam.ListRead {
  let read = missingReads.get(state);
  if (read === undefined) {
    read = missingRead(state);
    missingReads.set(state, read);
  }
  return read;
}

/** Whether two reads of a list's state are the same. */
function sameState(a: seam.ListState, b: seam.ListState): boolean {
  if (a.state === "live" && b.state === "live") return a.version === b.version && a.title === b.title;
  return a.state === b.state;
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
