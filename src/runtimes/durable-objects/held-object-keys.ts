// A list's keys in its own Durable Object: the rows in the object's SQLite, held in its memory, each
// change stored before it is held, and the waits of Workers for a revocation.
import { ChangeSignal } from "../../engine/change-signal.ts";
import type * as seam from "../../engine/task-store.ts";
import { HeldKeys, type ListKey } from "../../list/list-keys.ts";
import type { ListObjectKeys } from "../../store/durable-object/object-keys.ts";
import type { StorageFailed } from "../../store/durable-object/stored.ts";
import type { SqliteList } from "../../store/sqlite/sqlite-list.ts";
import { stored } from "./object-storage.ts";
import { ObjectWaits } from "./object-waits.ts";

/** The keys of the list an object holds: loaded from its SQLite on first use, each change stored before it is held. */
export class HeldObjectKeys {
  readonly #sqlite: SqliteList;
  #held: HeldKeys | undefined;
  /** Changes whenever a key is revoked or the list deleted; another in each run of the object, so a reset one is noticed. */
  #mark = crypto.randomUUID();
  #revocations = 0;
  readonly #waits = new ObjectWaits();
  readonly #changes = new ChangeSignal(() => this.#revocations);

  constructor(sqlite: SqliteList) {
    this.#sqlite = sqlite;
  }

  all(): readonly ListKey[] {
    return [...this.#keys().rows];
  }

  add(row: ListKey, max: number): seam.KeyAdded | StorageFailed {
    return stored(() => this.#keys().add(row, max, (kept) => this.#sqlite.addKey(kept)));
  }

  remove(id: string): seam.KeyRemoved | StorageFailed {
    const removed = stored(() => this.#keys().remove(id, (dropped) => this.#sqlite.removeKey(dropped)));
    if (removed.outcome === "removed") this.#revoked();
    return removed;
  }

  byHash(hash: string): ListKey | undefined {
    return this.#keys().byHash(hash);
  }

  /** Lets the held keys go: the list was deleted, and its rows with it. */
  forget(): void {
    this.#held = undefined;
    this.#revoked();
  }

  /** See {@link ListObjectKeys.nextKeyChange}. */
  async next(seen: string | undefined, waitMs: number, key: string): Promise<string> {
    if (seen === this.#current()) {
      await this.#waits.wait(key, waitMs, (signal) => this.#changes.wait(() => this.#current() !== seen, signal));
    }
    return this.#current();
  }

  stopWaiting(key: string): void {
    this.#waits.stop(key);
  }

  /** How many callers wait for a revocation. */
  get waiters(): number {
    return this.#waits.size;
  }

  #revoked(): void {
    this.#revocations++;
    this.#changes.notify();
  }

  #current(): string {
    return `${this.#mark}:${this.#revocations}`;
  }

  #keys(): HeldKeys {
    this.#held ??= new HeldKeys(this.#sqlite.keys());
    return this.#held;
  }
}
