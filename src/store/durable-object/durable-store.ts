// A list as a Worker reaches it in its own Durable Object: a copy in the isolate, kept current by
// asking the object only for what changed since.
import type { ListLimits } from "../../config.ts";
import type { HeldCopy } from "../../engine/bounded-copies.ts";
import { missingRead, readOf } from "../../engine/list-read.ts";
import { ListMirror } from "../../engine/mirror.ts";
import type * as seam from "../../engine/task-store.ts";
import { StoreUnavailableError } from "../../errors.ts";
import type { ListKey } from "../../list/list-keys.ts";
import { DEFAULT_LIST } from "../../list/list-names.ts";
import type { ListVersion } from "../../list/list-version.ts";
import type { NewTask } from "../../list/task.ts";
import { isListMissing } from "../../list/writes.ts";
import type { ListObjectNamespace, ListObjectRpc } from "./list-object-rpc.ts";
import { objectKeyRows } from "./object-keys.ts";
import { OwnWrites } from "./own-writes.ts";
import { type StorageFailed, unlessFailed } from "./stored.ts";

/** How long one call waits in the object for a change before it is asked again. */
const WAIT_MS = 30_000;

/**
 * A list as a Worker reaches it: typed RPC calls to the list's own object. The isolate keeps
 * its own copy of the list and, on every read, asks the object only for the tasks added since, so
 * what crosses between them follows the change, not the list's length. A call that fails for a
 * passing reason (the object reset by a deploy, a lost connection, an overloaded object) is a
 * store that cannot be reached: 503, try again. What the object's own code throws stays a 500.
 */
export class DurableObjectStore implements seam.TaskStore, HeldCopy {
  readonly #namespace: ListObjectNamespace;
  /** The list's name, which names its object. */
  readonly name: string;
  #mirror = new ListMirror();
  #read: seam.ListRead | undefined;
  /** Whether the list lived at the last read. */
  #live = false;
  readonly #own = new OwnWrites();
  readonly #onRead: ((store: DurableObjectStore) => void) | undefined;
  readonly #request: (() => object | undefined) | undefined;
  /** The read a request's key check brought, for that request's own read: one call to the object, not two. */
  readonly #checked = new WeakMap<object, { readonly at: ListVersion; readonly read: seam.ListRead }>();

  /**
   * List `name` (the default list without); `onRead` is told after each read, once the copy is
   * current; `request` tells which request runs now (undefined outside one, or where unknown).
   */
  constructor(
    namespace: ListObjectNamespace,
    name = DEFAULT_LIST,
    options: {
      readonly onRead?: (store: DurableObjectStore) => void;
      readonly request?: () => object | undefined;
    } = {},
  ) {
    this.#namespace = namespace;
    this.name = name;
    this.#onRead = options.onRead;
    this.#request = options.request;
  }

  /** The bytes of the list the copy holds. */
  get bytes(): number {
    return this.#mirror.current.usage.bytes;
  }

  /** Never: a reader waits in the list's object, not on the copy, so a copy past the bound is forgotten. */
  get busy(): boolean {
    return false;
  }

  /** Lets go of the copy's tasks: a read still under way with this store starts its next read from nothing. */
  drop(): void {
    this.#mirror = new ListMirror();
    this.#read = undefined;
    this.#live = false;
  }

  /**
   * The list as its object has it now. A request whose key was checked with a read reads what that
   * check brought, unless this isolate wrote to the list since: both began within the request.
   */
  read(): Promise<seam.ListRead> {
    const request = this.#request?.();
    const checked = request === undefined ? undefined : this.#checked.get(request);
    if (request === undefined || checked === undefined) return this.#readWith();
    this.#checked.delete(request);
    return checked.at === this.#mirror.current ? Promise.resolve(checked.read) : this.#readWith();
  }

  /** The key whose hash is `hash`: within a request, asked with the request's read of the list, in one call. */
  async #keyOf(hash: string): Promise<ListKey | undefined> {
    const request = this.#request?.();
    if (request === undefined) return this.#call(() => this.#stub().keyOf(hash));
    const found: { key?: ListKey | null } = {};
    const read = await this.#readWith(hash, found);
    this.#checked.set(request, { at: this.#mirror.current, read });
    return found.key ?? undefined;
  }

  async #readWith(keyHash?: string, found: { key?: ListKey | null } = {}): Promise<seam.ListRead> {
    const mark = this.#own.mark;
    const seen: { list: seam.ListState } = { list: { state: "not-found" } };
    const version = await this.#call(() =>
      this.#mirror.read(async (instance, after) => {
        const reply = await this.#stub().changes(instance, after, keyHash);
        seen.list = reply.list;
        if (keyHash !== undefined) found.key = reply.key ?? null;
        return reply;
      }),
    );
    this.#onRead?.(this);
    const state = seen.list;
    this.#live = state.state === "live";
    this.#own.caughtUp(mark);
    if (state.state !== "live") return missingRead(state.state);
    this.#read = readOf(this.#read, version, state);
    return this.#read;
  }

  async state(): Promise<seam.ListState> {
    return this.#call(() => this.#stub().state());
  }

  async append(
    task: NewTask,
    limits: ListLimits,
    key?: seam.IdempotencyKey,
  ): Promise<seam.AppendResult | seam.ListMissing> {
    const result = await this.#call(() => this.#stub().append(task, limits, key));
    if (isListMissing(result)) this.#own.list();
    return result;
  }

  async update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult | seam.ListMissing> {
    let result: seam.UpdateResult | seam.ListMissing;
    try {
      result = await this.#call(() => this.#stub().update(id, patch, limits, ifMatch));
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

  async nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    const current = this.#mirror.current;
    if (current.change > change || signal.aborted) return;
    // A level of this copy's, told to the object as bytes to come after the change it holds.
    const bytesAfter = bytesPast === undefined ? undefined : bytesPast - current.changedBytes;
    if (bytesAfter !== undefined && bytesAfter < 0) return;
    // A reader that goes away tells the object, which would otherwise hold its wait for WAIT_MS.
    const key = crypto.randomUUID();
    const stop = () => {
      this.#call(() => this.#stub().stopWaiting(key)).catch(() => {});
    };
    signal.addEventListener("abort", stop, { once: true });
    try {
      while (!signal.aborted) {
        if (await this.#call(() => this.#stub().nextChange(change, WAIT_MS, key, bytesAfter))) return;
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

  /** The list's keys, in its object: each of their methods is one call to it, a request's check with its read. */
  readonly keys: seam.KeyRows = {
    ...objectKeyRows((work) => this.#call(() => work(this.#stub()))),
    byHash: (hash) => this.#keyOf(hash),
  };

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

/**
 * Whether a failed call is worth trying again: Cloudflare marks such errors `retryable` (the
 * object was reset, the connection to it lost) or `overloaded` (too many requests to one object).
 */
function isPassing(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { retryable, overloaded } = error as { retryable?: unknown; overloaded?: unknown };
  return retryable === true || overloaded === true;
}
