// A list's keys in its own Durable Object: the rows in the object's SQLite, held in its memory, and
// the RPC methods by which a Worker reads, adds, revokes and checks them, one call each.
import { HeldKeys, type ListKey } from "../../list/list-keys.ts";
import type { SqliteList } from "../sqlite/sqlite-list.ts";
import type * as seam from "../store.ts";
import { type StorageFailed, type Stored, stored } from "./stored.ts";

/** The key methods of a list's object: a request's key is checked by one call of `keyOf`, to its list's object alone. */
export interface ListObjectKeys {
  keys(): readonly ListKey[] | seam.ListMissing | Promise<readonly ListKey[] | seam.ListMissing>;
  addKey(row: ListKey, max: number): Stored<seam.KeyAdded>;
  removeKey(id: string): Stored<seam.KeyRemoved>;
  keyOf(hash: string): ListKey | undefined | Promise<ListKey | undefined>;
}

/** The keys as a Worker reaches them: each method one call to the list's object, through `call`. */
export function objectKeyRows(call: <T>(work: (object: ListObjectKeys) => Stored<T>) => Promise<T>): seam.KeyRows {
  return {
    all: () => call((object) => object.keys()),
    add: (row, max) => call<seam.KeyAdded>((object) => object.addKey(row, max)),
    remove: (id) => call<seam.KeyRemoved>((object) => object.removeKey(id)),
    byHash: (hash) => call((object) => object.keyOf(hash)),
  };
}

/** The keys of the list an object holds: loaded from its SQLite on first use, each change stored before it is held. */
export class HeldObjectKeys {
  readonly #sqlite: SqliteList;
  #held: HeldKeys | undefined;

  constructor(sqlite: SqliteList) {
    this.#sqlite = sqlite;
  }

  all(): readonly ListKey[] {
    return [...this.#keys().rows];
  }

  add(row: ListKey, max: number): seam.KeyAdded | StorageFailed {
    const keys = this.#keys();
    if (!keys.hasRoom(max)) return { outcome: "full" };
    const failed = stored(() => this.#sqlite.addKey(row));
    if (failed !== undefined) return failed;
    keys.add(row);
    return { outcome: "added" };
  }

  remove(id: string): seam.KeyRemoved | StorageFailed {
    const keys = this.#keys();
    if (!keys.has(id)) return { outcome: "not-found" };
    const failed = stored(() => this.#sqlite.removeKey(id));
    if (failed !== undefined) return failed;
    keys.remove(id);
    return { outcome: "removed" };
  }

  byHash(hash: string): ListKey | undefined {
    return this.#keys().byHash(hash);
  }

  /** Lets the held keys go: the list was deleted, and its rows with it. */
  forget(): void {
    this.#held = undefined;
  }

  #keys(): HeldKeys {
    this.#held ??= new HeldKeys(this.#sqlite.keys());
    return this.#held;
  }
}
