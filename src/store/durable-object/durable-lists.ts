// Every list of a Worker on Durable Objects: each list in its own object, named by the list's
// name, reached through a copy this isolate keeps within a bound of bytes; the directory of lists
// in one more object, reached only to create, retitle, delete and enumerate lists.

import { BoundedCopies } from "../../engine/bounded-copies.ts";
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

/**
 * The lists of a Worker on Durable Objects. `list(name)` reaches list `name`'s object alone (its
 * state, tasks and subscribers are there), through a copy this isolate keeps: copies of at most
 * `maxCopyBytes` in all, the least recently used dropped first (the list read last is kept however
 * large), so an isolate that reads many large lists in turn stays within its memory.
 */
export class DurableLists implements seam.TaskLists {
  readonly #lists: ListObjectNamespace;
  readonly #directory: DirectoryNamespace;
  /** The request whose code runs now: a list reads what its key check brought within one request. */
  readonly #request: (() => object | undefined) | undefined;
  readonly #copies: BoundedCopies<DurableObjectStore>;

  constructor(
    lists: ListObjectNamespace,
    directory: DirectoryNamespace,
    options: { readonly maxCopyBytes?: number; readonly request?: () => object | undefined } = {},
  ) {
    this.#lists = lists;
    this.#directory = directory;
    this.#copies = new BoundedCopies(options.maxCopyBytes ?? MAX_COPY_BYTES);
    this.#request = options.request;
  }

  /** The bytes of the copies this isolate keeps now. */
  get copyBytes(): number {
    return this.#copies.bytes;
  }

  /** The names of the lists this isolate keeps copies of, least recently used first. */
  get copied(): string[] {
    return Array.from(this.#copies.values(), (store) => store.name);
  }

  directory(): Promise<seam.Directory> {
    return this.#call(() => this.#stub().directory());
  }

  list(name: string): DurableObjectStore {
    return this.#copies.use(
      name,
      () =>
        new DurableObjectStore(this.#lists, name, {
          onRead: (store) => this.#copies.sized(name, store),
          ...(this.#request === undefined ? {} : { request: this.#request }),
        }),
    );
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

  async put(name: string, title: string, conditions: PutConditions, limits: DirectoryLimits) {
    return this.#written(await this.#call(() => this.#stub().put(name, title, conditions, limits)));
  }

  async patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    return this.#written(await this.#call(() => this.#stub().patch(name, title, ifMatch)));
  }

  async remove(name: string, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    // Told before the call and after it: a read made meanwhile may have found the list still there.
    const copy = () => this.#copies.peek(name)?.listChanged();
    copy();
    try {
      return this.#written(await this.#call(() => this.#stub().remove(name, ifMatch)));
    } finally {
      copy();
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
