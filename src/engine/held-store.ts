// A store whose list is held in this process's memory: each write is decided by the list's rules
// (list/held-list.ts), persisted by the store, then applied; reads never leave memory.
import type { ListLimits } from "../config.ts";
import type { Decision, HeldList, ListChange } from "../list/held-list.ts";
import type { Continuation } from "../list/list-directory.ts";
import { HeldKeys, type ListKey } from "../list/list-keys.ts";
import type { ListVersion } from "../list/list-version.ts";
import type { NewTask } from "../list/task.ts";
import type { WriteResult } from "../list/writes.ts";
import { ChangeSignal } from "./change-signal.ts";
import { readOf } from "./list-read.ts";
import type * as seam from "./task-store.ts";

/** Writes a change to where the store keeps the list, or throws, and the list does not change. */
export type Persist = (change: ListChange) => void;

/** Where a store keeps its list's keys beside memory: the memory store keeps them nowhere else. */
export interface KeyKeeping {
  /** The keys as they were kept, oldest first. */
  readonly load: () => readonly ListKey[];
  /** Writes a key, or throws, and the list does not hold it. */
  readonly add: (row: ListKey) => void;
  /** Deletes a key, or throws, and the list still holds it. */
  readonly remove: (id: string) => void;
}

const IN_MEMORY: KeyKeeping = { load: () => [], add: () => {}, remove: () => {} };

/**
 * The seam over a {@link HeldList}: the memory store persists nothing, the SQLite file store a row
 * per change. The list is made on first use, so a Worker's memory store makes no random instance
 * at start-up, which Workers refuse.
 */
export class HeldListStore implements seam.TaskStore {
  readonly #open: () => HeldList;
  #list: HeldList | undefined;
  readonly #persist: Persist;
  readonly #changes: ChangeSignal;
  readonly #keyKeeping: KeyKeeping;
  #keys: HeldKeys | undefined;
  #lastRead: seam.ListRead | undefined;

  /**
   * With `pollMs`, readers waiting for a change look again on a timer of their own (see
   * {@link ChangeSignal}); with `keys`, the list's keys are kept there too.
   */
  constructor(
    open: () => HeldList,
    persist: Persist = () => {},
    options: { readonly pollMs?: number; readonly keys?: KeyKeeping } = {},
  ) {
    this.#open = open;
    this.#persist = persist;
    this.#keyKeeping = options.keys ?? IN_MEMORY;
    this.#changes = new ChangeSignal(() => this.#held().changedBytes, options.pollMs);
  }

  /** The list's keys, decided in memory and kept as {@link KeyKeeping} says. */
  readonly keys: seam.KeyRows = {
    all: async () => [...this.#heldKeys().rows],
    add: async (row, max) => this.#heldKeys().add(row, max, this.#keyKeeping.add),
    remove: async (id) => this.#heldKeys().remove(id, this.#keyKeeping.remove),
    byHash: (hash) => this.#heldKeys().byHash(hash),
  };

  #heldKeys(): HeldKeys {
    this.#keys ??= new HeldKeys(this.#keyKeeping.load());
    return this.#keys;
  }

  read(): seam.ListRead {
    this.#lastRead = readOf(this.#lastRead, this.#held().read());
    return this.#lastRead;
  }

  /** The list's version now. */
  current(): ListVersion {
    return this.#held().read();
  }

  async append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult> {
    return this.#made(this.#held().append(task, limits, key));
  }

  async update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult> {
    return this.#made(this.#held().update(id, patch, limits, ifMatch));
  }

  async remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult> {
    return this.#made(this.#held().remove(id, ifMatch));
  }

  /** The highest id the list gave and its last change number: where it would continue if made again. */
  get reached(): Continuation {
    const { highestId, change } = this.current();
    return { highestId, change };
  }

  /** The list was deleted: its waiting readers are woken to read it gone, and none waits again. */
  end(): void {
    this.#changes.end();
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    if (bytesPast !== undefined) return this.#changes.waitPast(bytesPast, signal);
    return this.#changes.wait(() => this.#held().change > change, signal);
  }

  /** Persists and applies the decision's change, if it makes one, and wakes the readers it concerns. */
  #made<R extends WriteResult>(decision: Decision<R>): R {
    const result = this.#held().commit(decision, this.#persist);
    if (decision.change !== undefined) this.#changes.notify();
    return result;
  }

  #held(): HeldList {
    this.#list ??= this.#open();
    return this.#list;
  }
}
