// Many lists in this isolate's or process's memory: the directory, decided by list/list-directory.ts,
// and one MemoryStore per list, each of which knows whether its list still exists.
import type { ListLimits } from "../config.ts";
import {
  type Continuation,
  type DirectoryLimits,
  freshDirectory,
  ListDirectory,
  type ListIfMatch,
  type ListRecord,
  type ListResult,
  type PutConditions,
} from "../list/list-directory.ts";
import { DEFAULT_LIST } from "../list/list-names.ts";
import type { NewTask } from "../list/task.ts";
import { missingRead, StatedVersion } from "./list-read.ts";
import { MemoryStore } from "./memory.ts";
import type * as seam from "./store.ts";

/**
 * Every list of this isolate or process, in memory: `default` with the initial tasks, the others
 * created empty. Each decision and what it changes happen in one synchronous step.
 */
export class MemoryLists implements seam.TaskLists {
  #directory: ListDirectory | undefined;
  /** The latest incarnation of every name that ever had a list, deleted ones included. */
  readonly #lists = new Map<string, MemoryList>();
  readonly #pollMs: number | undefined;

  /** With `pollMs`, readers waiting for a change look again on a timer of their own (Workers). */
  constructor(options: { readonly pollMs?: number } = {}) {
    this.#pollMs = options.pollMs;
  }

  directory(): seam.Directory {
    const directory = this.#opened();
    return { version: directory.version, json: directory.json };
  }

  list(name: string): seam.TaskStore {
    this.#opened();
    return this.#lists.get(name) ?? NEVER_CREATED;
  }

  async create(title: string, limits: DirectoryLimits, key?: seam.IdempotencyKey): Promise<seam.ListWriteResult> {
    return this.#applied(this.#opened().create(title, limits, key));
  }

  async put(
    name: string,
    title: string,
    conditions: PutConditions,
    limits: DirectoryLimits,
  ): Promise<seam.ListWriteResult> {
    return this.#applied(this.#opened().put(name, title, conditions, limits));
  }

  async patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    return this.#applied(this.#opened().patch(name, title, ifMatch));
  }

  async remove(name: string, ifMatch: ListIfMatch): Promise<seam.ListWriteResult> {
    const list = this.#lists.get(name);
    const result = this.#opened().remove(name, ifMatch, () => list?.reached ?? { highestId: 0, change: 0 });
    if (result.outcome === "deleted") list?.delete();
    return result;
  }

  /** Makes what the directory decided true of the lists themselves, in the same step. */
  #applied(result: ListResult): ListResult {
    if (result.outcome === "created") {
      const after = result.resume;
      const store = new MemoryStore(this.#pollMs === undefined ? { after } : { pollMs: this.#pollMs, after });
      this.#lists.set(result.list.name, new MemoryList(result.list, store, this.#pollMs));
    } else if (result.outcome === "retitled") {
      this.#lists.get(result.list.name)?.retitle(result.list);
    }
    return result;
  }

  /** Made on first use: its random instance sets its versions apart, and Workers refuse random values at start-up. */
  #opened(): ListDirectory {
    if (this.#directory === undefined) {
      this.#directory = new ListDirectory(freshDirectory(crypto.randomUUID().slice(0, 8)));
      for (const list of this.#directory.lists) {
        const store = new MemoryStore(this.#pollMs === undefined ? {} : { pollMs: this.#pollMs });
        this.#lists.set(list.name, new MemoryList(list, store, this.#pollMs));
      }
    }
    return this.#directory;
  }
}

/**
 * One incarnation of a list: its tasks in a MemoryStore, while it lives. Once deleted, it answers
 * every write `list-gone` and every read gone, and wakes its readers; a name made again is a new one.
 */
class MemoryList implements seam.TaskStore {
  /** The list's tasks while it lives; let go once it is deleted, so a deleted list holds no memory. */
  #store: MemoryStore | undefined;
  readonly #pollMs: number | undefined;
  readonly #undeletable: boolean;
  #state: seam.ListState;
  #read: { readonly of: object; readonly as: seam.ListRead } | undefined;
  readonly #deleted = new AbortController();

  constructor(list: ListRecord, store: MemoryStore, pollMs: number | undefined) {
    this.#store = store;
    this.#pollMs = pollMs;
    this.#undeletable = list.name === DEFAULT_LIST;
    this.#state = { state: "live", title: list.title, version: list.version };
  }

  get reached(): Continuation {
    return this.#store?.reached ?? { highestId: 0, change: 0 };
  }

  retitle(list: ListRecord): void {
    this.#state = { state: "live", title: list.title, version: list.version };
    this.#read = undefined;
  }

  delete(): void {
    this.#state = { state: "gone" };
    this.#store = undefined;
    this.#read = undefined;
    this.#deleted.abort();
  }

  read(): seam.ListRead {
    if (this.#store === undefined || this.#state.state !== "live") return goneRead();
    const version = this.#store.read();
    // One wrapper per version of the list, not per read.
    if (this.#read?.of !== version) this.#read = { of: version, as: new StatedVersion(version, this.#state) };
    return this.#read.as;
  }

  append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult | seam.ListMissing> {
    return this.#store === undefined ? LIST_GONE : this.#store.append(task, limits, key);
  }

  update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult | seam.ListMissing> {
    return this.#store === undefined ? LIST_GONE : this.#store.update(id, patch, limits, ifMatch);
  }

  remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult | seam.ListMissing> {
    return this.#store === undefined ? LIST_GONE : this.#store.remove(id, ifMatch);
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    const deleted = this.#deleted.signal;
    if (this.#store === undefined) return Promise.resolve();
    // The default list is never deleted: its readers wait on the list alone, as before there were lists.
    if (this.#undeletable) return this.#store.nextChange(change, signal, bytesPast);
    const either = AbortSignal.any([signal, deleted]);
    const waited = this.#store.nextChange(change, either, bytesPast);
    // On Workers one request may not wake another: a reader looks for the deletion on its own timer.
    const pollMs = this.#pollMs;
    if (pollMs === undefined) return waited;
    return new Promise((done) => {
      const timer = setInterval(() => {
        if (deleted.aborted || signal.aborted) finish();
      }, pollMs);
      const finish = () => {
        clearInterval(timer);
        done();
      };
      waited.then(finish, finish);
    });
  }
}

/** The store of a name that never had a list. */
const NEVER_CREATED: seam.TaskStore = {
  read: () => notFoundRead(),
  append: async () => ({ outcome: "list-not-found" }),
  update: async () => ({ outcome: "list-not-found" }),
  remove: async () => ({ outcome: "list-not-found" }),
  nextChange: async () => {},
};

const LIST_GONE = Promise.resolve({ outcome: "list-gone" } as const);

let gone: seam.ListRead | undefined;
let notFound: seam.ListRead | undefined;
function goneRead(): seam.ListRead {
  gone ??= missingRead("gone");
  return gone;
}
function notFoundRead(): seam.ListRead {
  notFound ??= missingRead("not-found");
  return notFound;
}
