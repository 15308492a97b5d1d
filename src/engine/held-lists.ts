// Many lists held in this isolate's or process's memory: the directory, decided by
// list/list-directory.ts, and one held list per list, each of which knows whether its list still
// exists. The memory store keeps them nowhere else; the SQLite file persists each decision.
import type { ListLimits } from "../config.ts";
import {
  type Continuation,
  type DirectoryLimits,
  type DirectoryState,
  freshDirectory,
  ListDirectory,
  type ListIfMatch,
  type ListRecord,
  type ListResult,
  type PutConditions,
} from "../list/list-directory.ts";
import type { NewTask } from "../list/task.ts";
import { missingList } from "../list/writes.ts";
import type { HeldListStore } from "./held-store.ts";
import { missingRead, missingStore, readOf } from "./list-read.ts";
import { MemoryStore } from "./memory.ts";
import { newInstance } from "./new-history.ts";
import type * as seam from "./task-store.ts";

/** Where the lists are kept beside memory: the memory store keeps them nowhere else. */
export interface ListsKeeping {
  /** The directory as it was kept; undefined for a new one. */
  readonly directory: () => DirectoryState | undefined;
  /**
   * The store of list `name`, which lives: as it was kept, or, where nothing but memory keeps it, made
   * anew (with its ids and change numbers after `resume`, or the initial tasks without).
   */
  readonly list: (name: string, resume?: Continuation) => HeldListStore;
  /**
   * Makes a directory decision and keeps what it changed, in one atomic step, or throws, and then
   * the directory is read again from where it is kept.
   */
  readonly decide: (decision: () => ListResult, maxKeys: number) => ListResult;
}

/** A list's store whose list is in this process: it reads without a promise. */
export interface HeldTaskStore extends seam.TaskStore {
  read(): seam.ListRead;
}

/** The memory store's keeping: nothing beside memory. */
function inMemory(pollMs: number | undefined): ListsKeeping {
  return {
    directory: () => undefined,
    list: (_name, after) => new MemoryStore({ ...(pollMs === undefined ? {} : { pollMs }), ...(after && { after }) }),
    decide: (decision) => decision(),
  };
}

/**
 * Every list of this isolate or process, held in memory: `default` with the initial tasks, the
 * others created empty. Each decision and what it changes happen in one synchronous step.
 */
export class HeldLists implements seam.TaskLists {
  #directory: ListDirectory | undefined;
  /** The latest incarnation of every name that ever had a list, deleted ones included. */
  readonly #lists = new Map<string, OneOfMany>();
  readonly #keeping: ListsKeeping;

  /**
   * With `pollMs`, readers waiting for a change look again on a timer of their own (Workers); with
   * `keeping`, the lists are kept there too (else in memory alone).
   */
  constructor(options: { readonly pollMs?: number; readonly keeping?: ListsKeeping } = {}) {
    this.#keeping = options.keeping ?? inMemory(options.pollMs);
  }

  directory(): seam.Directory {
    const directory = this.#opened();
    return { version: directory.version, json: directory.json };
  }

  list(name: string): HeldTaskStore {
    const directory = this.#opened();
    return this.#lists.get(name) ?? (directory.find(name) === "gone" ? DELETED : NEVER_CREATED);
  }

  async create(title: string, limits: DirectoryLimits, key?: seam.IdempotencyKey): Promise<seam.ListWriteResult> {
    return this.#decided((directory) => directory.create(title, limits, key), limits.maxKeys);
  }

  async put(name: string, title: string, conditions: PutConditions, limits: DirectoryLimits) {
    return this.#decided((directory) => directory.put(name, title, conditions, limits), limits.maxKeys);
  }

  async patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    return this.#decided((directory) => directory.patch(name, title, ifMatch), 0);
  }

  async remove(name: string, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    const list = this.#lists.get(name);
    const reached = () => list?.reached ?? { highestId: 0, change: 0 };
    return this.#decided((directory) => directory.remove(name, ifMatch, reached), 0);
  }

  /**
   * Makes a decision where the lists are kept, then true of the lists held here; a decision that
   * could not be kept leaves the directory to be read again from where it is kept.
   */
  #decided(decide: (directory: ListDirectory) => ListResult, maxKeys: number): ListResult {
    const directory = this.#opened();
    let result: ListResult;
    try {
      result = this.#keeping.decide(() => decide(directory), maxKeys);
    } catch (error) {
      this.#directory = undefined;
      throw error;
    }
    if (result.outcome === "created") {
      const store = this.#keeping.list(result.list.name, result.resume);
      this.#lists.set(result.list.name, new OneOfMany(result.list, store));
    } else if (result.outcome === "retitled") {
      this.#lists.get(result.list.name)?.retitle(result.list);
    } else if (result.outcome === "deleted") {
      this.#lists.get(result.name)?.delete();
    }
    return result;
  }

  /** Made on first use: its random instance sets its versions apart, and Workers refuse random values at start-up. */
  #opened(): ListDirectory {
    if (this.#directory === undefined) {
      this.#directory = new ListDirectory(this.#keeping.directory() ?? freshDirectory(newInstance()));
      for (const list of this.#directory.lists) {
        if (this.#lists.get(list.name)?.live === true) continue;
        this.#lists.set(list.name, new OneOfMany(list, this.#keeping.list(list.name)));
      }
    }
    return this.#directory;
  }
}

/**
 * One incarnation of a list: its tasks held in a store, while it lives. Once deleted, it answers
 * every write `list-gone` and every read gone, and wakes its readers; a name made again is a new one.
 */
class OneOfMany implements seam.TaskStore {
  /** The list's tasks while it lives; let go once it is deleted, so a deleted list holds no memory. */
  #store: HeldListStore | undefined;
  #state: seam.ListState;
  #read: seam.ListRead | undefined;

  constructor(list: ListRecord, store: HeldListStore) {
    this.#store = store;
    this.#state = { state: "live", title: list.title, version: list.version };
  }

  get reached(): Continuation {
    return this.#store?.reached ?? { highestId: 0, change: 0 };
  }

  /** Whether the list lives. */
  get live(): boolean {
    return this.#state.state === "live";
  }

  retitle(list: ListRecord): void {
    this.#state = { state: "live", title: list.title, version: list.version };
    this.#read = undefined;
  }

  delete(): void {
    this.#state = { state: "gone" };
    this.#store?.end();
    this.#store = undefined;
    this.#read = undefined;
  }

  read(): seam.ListRead {
    if (this.#store === undefined || this.#state.state !== "live") return missingRead("gone");
    this.#read = readOf(this.#read, this.#store.current(), this.#state);
    return this.#read;
  }

  append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult | seam.ListMissing> {
    return this.#store === undefined ? LIST_GONE : this.#store.append(task, limits, key);
  }

  update(id: number, patch: seam.TaskPatch, limits: ListLimits, ifMatch?: seam.IfMatch) {
    return this.#store === undefined ? LIST_GONE : this.#store.update(id, patch, limits, ifMatch);
  }

  remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult | seam.ListMissing> {
    return this.#store === undefined ? LIST_GONE : this.#store.remove(id, ifMatch);
  }

  /** The list's keys while it lives; they die with it. */
  readonly keys: seam.KeyRows = {
    all: async () => this.#store?.keys.all() ?? LIST_GONE,
    add: async (row, max) => this.#store?.keys.add(row, max) ?? LIST_GONE,
    remove: async (id) => this.#store?.keys.remove(id) ?? LIST_GONE,
    byHash: (hash) => this.#store?.keys.byHash(hash),
  };

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    // A deletion ends the store's waits: its readers read the list gone.
    return this.#store === undefined ? Promise.resolve() : this.#store.nextChange(change, signal, bytesPast);
  }
}

const LIST_GONE = Promise.resolve(missingList("gone"));

/** The store of a name that never had a list. */
const NEVER_CREATED: HeldTaskStore = missingStore("not-found");

/** The store of a name whose list was deleted before this process held it. */
const DELETED: HeldTaskStore = missingStore("gone");
