// Every list of a Worker on Durable Objects: each list in its own object, named by the list's
// name, reached through a copy this isolate keeps within a bound of bytes; the directory of lists
// in one more object, reached only to create, retitle, delete and enumerate lists.

import type * as seam from "../../engine/task-store.ts";
import { StoreUnavailableError } from "../../errors.ts";
import type { DirectoryLimits, ListIfMatch, ListResult, PutConditions } from "../../list/list-directory.ts";
import { DurableObjectStore, objectCall } from "./durable-store.ts";
import type { ListObjectNamespace } from "./list-object-rpc.ts";

/** What the directory object answers a write: the decision, or that the list's object could not be told yet (503). */
export type DirectoryReply = ListResult | { readonly outcome: "unavailable"; readonly reason: string };

/** The directory object's RPC methods, as the Worker calls them. */
export interface DirectoryRpc {
  directory(): seam.Directory | Promise<seam.Directory>;
  create(title: string, limits: DirectoryLimits, key?: seam.IdempotencyKey): DirectoryReply | Promise<DirectoryReply>;
  put(
    name: string,
    title: string,
    conditions: PutConditions,
    limits: DirectoryLimits,
  ): DirectoryReply | Promise<DirectoryReply>;
  patch(name: string, title: string | undefined, ifMatch: ListIfMatch): DirectoryReply | Promise<DirectoryReply>;
  remove(name: string, ifMatch: ListIfMatch): DirectoryReply | Promise<DirectoryReply>;
}

/** The binding of the directory object's class, as far as the Worker uses it. */
export interface DirectoryNamespace {
  getByName(name: string): DirectoryRpc;
}

/** The name of the deployment's one directory object. */
export const DIRECTORY_OBJECT = "directory";
/** The bytes of lists an isolate keeps copies of by default: a quarter of its 128 MB. */
export const MAX_COPY_BYTES = 32 * 1024 * 1024;
/** What a copy costs beside its list's bytes, so that many small copies are bounded too. */
const COPY_OVERHEAD_BYTES = 1024;

/**
 * The lists of a Worker on Durable Objects. `list(name)` reaches list `name`'s object alone (its
 * state, tasks and subscribers are there), through a copy this isolate keeps: copies of at most
 * `maxCopyBytes` in all, the least recently used dropped first (the list read last is kept however
 * large), so an isolate that reads many large lists in turn stays within its memory.
 */
export class DurableLists implements seam.TaskLists {
  readonly #lists: ListObjectNamespace;
  readonly #directory: DirectoryNamespace;
  readonly #maxCopyBytes: number;
  /** The request whose code runs now: a list reads what its key check brought within one request. */
  readonly #request: (() => object | undefined) | undefined;
  /** The copies kept, least recently used first, with the bytes each held at its last read. */
  readonly #copies = new Map<string, { readonly store: DurableObjectStore; bytes: number }>();
  #bytes = 0;

  constructor(
    lists: ListObjectNamespace,
    directory: DirectoryNamespace,
    options: { readonly maxCopyBytes?: number; readonly request?: () => object | undefined } = {},
  ) {
    this.#lists = lists;
    this.#directory = directory;
    this.#maxCopyBytes = options.maxCopyBytes ?? MAX_COPY_BYTES;
    this.#request = options.request;
  }

  /** The bytes of the copies this isolate keeps now. */
  get copyBytes(): number {
    return this.#bytes;
  }

  /** The names of the lists this isolate keeps copies of, least recently used first. */
  get copied(): string[] {
    return [...this.#copies.keys()];
  }

  directory(): Promise<seam.Directory> {
    return this.#call(() => this.#stub().directory());
  }

  list(name: string): DurableObjectStore {
    const kept = this.#copies.get(name);
    if (kept !== undefined) {
      // Most recently used last.
      this.#copies.delete(name);
      this.#copies.set(name, kept);
      return kept.store;
    }
    const store = new DurableObjectStore(this.#lists, name, {
      onRead: (read) => this.#read(read),
      ...(this.#request === undefined ? {} : { request: this.#request }),
    });
    this.#copies.set(name, { store, bytes: COPY_OVERHEAD_BYTES });
    this.#bytes += COPY_OVERHEAD_BYTES;
    this.#bound(name);
    return store;
  }

  /**
   * Hands a WebSocket subscriber of list `name` at `cursor` to the list's object, which holds it
   * through the Hibernation API and counts its subscribers against `maxSubscribers`; with the hash
   * of the list key that let it in, until that key is revoked or expires.
   */
  openSocket(name: string, request: Request, cursor: number, maxSubscribers: number, keyHash?: string) {
    return this.list(name).openSocket(request, cursor, maxSubscribers, keyHash);
  }

  async create(title: string, limits: DirectoryLimits, key?: seam.IdempotencyKey): Promise<seam.ListWriteResult> {
    return this.#written(await this.#call(() => this.#stub().create(title, limits, key)));
  }

  async put(
    name: string,
    title: string,
    conditions: PutConditions,
    limits: DirectoryLimits,
  ): Promise<seam.ListWriteResult> {
    return this.#written(await this.#call(() => this.#stub().put(name, title, conditions, limits)));
  }

  async patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    return this.#written(await this.#call(() => this.#stub().patch(name, title, ifMatch)));
  }

  async remove(name: string, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    // Told before the call and after it: a read made meanwhile may have found the list still there.
    const copy = () => this.#copies.get(name)?.store.listChanged();
    copy();
    try {
      return this.#written(await this.#call(() => this.#stub().remove(name, ifMatch)));
    } finally {
      copy();
    }
  }

  /** A copy that was read: its bytes now, and the bound kept. */
  #read(store: DurableObjectStore): void {
    const kept = this.#copies.get(store.name);
    // A copy dropped while its read was under way is no longer counted.
    if (kept?.store !== store) return;
    const bytes = store.bytes + COPY_OVERHEAD_BYTES;
    this.#bytes += bytes - kept.bytes;
    kept.bytes = bytes;
    this.#bound(store.name);
  }

  /** Drops the least recently used copies, never `keep`'s, until the copies are within the bound. */
  #bound(keep: string): void {
    for (const [name, { bytes }] of this.#copies) {
      if (this.#bytes <= this.#maxCopyBytes) return;
      if (name === keep) continue;
      this.#copies.delete(name);
      this.#bytes -= bytes;
    }
  }

  #written(reply: DirectoryReply): seam.ListWriteResult {
    if (reply.outcome === "unavailable") throw new StoreUnavailableError(reply.reason);
    return reply;
  }

  #stub(): DirectoryRpc {
    return this.#directory.getByName(DIRECTORY_OBJECT);
  }

  #call<T>(call: () => T | Promise<T>): Promise<T> {
    return objectCall("The directory of lists' Durable Object", call);
  }
}
