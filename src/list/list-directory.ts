// The directory of lists, decided once for every store: which lists exist in which order, what a
// creation, a retitling or a deletion does, and what a store must persist of each.
import { DEFAULT_LIST, DEFAULT_TITLE, randomListName } from "./list-names.ts";

/** A list as `/lists` and `/lists/{name}` serve it. */
export interface ListEntry {
  readonly name: string;
  readonly title: string;
}

/** A list of the directory: its entry and its own version (a strong ETag's value), which changes when it is retitled or made again. */
export interface ListRecord extends ListEntry {
  readonly version: string;
}

/** Where a list made again continues: after the highest id it gave and its last change number. */
export interface Continuation {
  readonly highestId: number;
  readonly change: number;
}

/** A deleted name and where it stopped. */
export interface DeletedList extends Continuation {
  readonly name: string;
}

/** A POST's Idempotency-Key, as the store seam's `IdempotencyKey` has it. */
export interface DirectoryKey {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
}

/** The directory as a store keeps it: everything {@link ListDirectory} decides from. */
export interface DirectoryState {
  /** Sets this directory's versions apart from every other's. */
  readonly instance: string;
  /** The directory's change number: one more for each creation, retitling and deletion. */
  readonly change: number;
  /** The lists that exist, in the order they were created. */
  readonly lists: readonly ListRecord[];
  readonly deleted: readonly DeletedList[];
  /** The POST keys remembered, each scope's oldest first, with the list each made. */
  readonly keys?: readonly RememberedListKey[];
}

/** A POST's key as the directory remembers it: with the list it made, as first answered. */
export interface RememberedListKey extends DirectoryKey {
  readonly json: string;
}

/** The versions an `If-Match` names (unquoted), `"any"` for `*`, undefined without one. */
export type ListIfMatch = "any" | readonly string[] | undefined;

/** The preconditions of a PUT: `If-Match`, and `If-None-Match: *` (create only). */
export interface PutConditions {
  readonly ifMatch: ListIfMatch;
  readonly ifNoneMatch: boolean;
}

/** What a creation is checked against: MAX_LISTS, and how many POST keys a token's scope keeps. */
export interface DirectoryLimits {
  readonly maxLists: number;
  readonly maxKeys: number;
}

/**
 * What a write to the directory did. `created` says where the new list's ids and change numbers
 * start (`resume`), `deleted` the name whose list and tasks are gone; `replayed` is a known
 * Idempotency-Key's list as first answered, `full` a creation past MAX_LISTS, `default-kept` a
 * deletion of the default list.
 */
export type ListResult =
  | {
      readonly outcome: "created";
      readonly list: ListRecord;
      readonly resume: Continuation;
      /** The POST's key, remembered with the list's JSON; its scope keeps only its newest keys past that. */
      readonly key?: RememberedListKey;
    }
  | { readonly outcome: "replayed"; readonly json: string }
  | { readonly outcome: "retitled" | "unchanged"; readonly list: ListRecord }
  | { readonly outcome: "deleted"; readonly name: string }
  | { readonly outcome: "full"; readonly maxLists: number }
  | {
      readonly outcome: "key-reused" | "not-found" | "gone" | "precondition-failed" | "default-kept";
    };

/** A list's JSON, exactly `{"name","title"}` in this order. */
export function listJson(list: ListEntry): string {
  return `{"name":${JSON.stringify(list.name)},"title":${JSON.stringify(list.title)}}`;
}

/** A fresh directory: the default list alone. */
export function freshDirectory(instance: string): DirectoryState {
  return {
    instance,
    change: 0,
    lists: [{ name: DEFAULT_LIST, title: DEFAULT_TITLE, version: `${instance}-l0` }],
    deleted: [],
  };
}

const START: Continuation = { highestId: 0, change: 0 };

/**
 * Where a deleted list made again starts: its making is a change of its own, one past the last
 * change the old list gave, so that every cursor the old list gave, its last included, is reset.
 */
export function madeAgain(stopped: Continuation): Continuation {
  return { highestId: stopped.highestId, change: stopped.change + 1 };
}

/**
 * The directory held in memory, and every decision on it, each made and applied in one
 * synchronous step: a store calls it inside the one atomic step that persists what it returns.
 */
export class ListDirectory {
  readonly #instance: string;
  #change: number;
  /** Insertion order is creation order: a name made again is deleted and set anew, so it comes last. */
  readonly #lists = new Map<string, ListRecord>();
  readonly #deleted = new Map<string, Continuation>();
  /** POST keys by scope, then key; a Map keeps insertion order, so a scope's first entry is its oldest. */
  readonly #keys = new Map<string, Map<string, { readonly fingerprint: string; readonly json: string }>>();
  #json: { readonly change: number; readonly text: string } | undefined;

  constructor(state: DirectoryState) {
    this.#instance = state.instance;
    this.#change = state.change;
    for (const list of state.lists) this.#lists.set(list.name, list);
    for (const { name, highestId, change } of state.deleted) this.#deleted.set(name, { highestId, change });
    for (const { scope, key, fingerprint, json } of state.keys ?? [])
      this.#scope(scope).set(key, { fingerprint, json });
  }

  /** The directory's version: it changes when a list is created, retitled or deleted, and only then. */
  get version(): string {
    return `${this.#instance}-d${this.#change}`;
  }

  /** The lists that exist, in creation order. */
  get lists(): Iterable<ListRecord> {
    return this.#lists.values();
  }

  /** The lists as `/lists` serves them: a JSON array in creation order. */
  get json(): string {
    if (this.#json?.change !== this.#change) {
      this.#json = { change: this.#change, text: `[${Array.from(this.#lists.values(), listJson).join(",")}]` };
    }
    return this.#json.text;
  }

  /** The list named `name`, or whether it was deleted or never created. */
  find(name: string): ListRecord | "gone" | "not-found" {
    return this.#lists.get(name) ?? (this.#deleted.has(name) ? "gone" : "not-found");
  }

  /**
   * Creates a list with a new random name (a POST). With `key`, a key already used answers its list
   * as first answered (or refused, for another title) before MAX_LISTS; a new one is remembered.
   */
  create(title: string, limits: DirectoryLimits, key?: DirectoryKey, name = this.#unusedName()): ListResult {
    const known = key === undefined ? undefined : this.#keys.get(key.scope)?.get(key.key);
    if (known !== undefined) {
      return known.fingerprint === key?.fingerprint
        ? { outcome: "replayed", json: known.json }
        : { outcome: "key-reused" };
    }
    const result = this.#create(name, title, limits);
    if (key === undefined || result.outcome !== "created") return result;
    const remembered = { ...key, json: listJson(result.list) };
    this.#remember(remembered, limits.maxKeys);
    return { ...result, key: remembered };
  }

  /**
   * Creates list `name` or replaces its title (a PUT): `If-None-Match: *` refuses an existing list,
   * `If-Match` a list that is not that version (or, with `*`, one that does not exist).
   */
  put(name: string, title: string, conditions: PutConditions, limits: DirectoryLimits): ListResult {
    const found = this.#lists.get(name);
    if (found === undefined) {
      if (conditions.ifMatch !== undefined) return { outcome: "precondition-failed" };
      return this.#create(name, title, limits);
    }
    if (conditions.ifNoneMatch || !matches(conditions.ifMatch, found.version)) {
      return { outcome: "precondition-failed" };
    }
    return this.#retitle(found, title);
  }

  /** Applies a merge patch of the title (undefined: none) to list `name` (a PATCH), with `If-Match`. */
  patch(name: string, title: string | undefined, ifMatch: ListIfMatch): ListResult {
    const found = this.find(name);
    if (typeof found === "string") return { outcome: found };
    if (!matches(ifMatch, found.version)) return { outcome: "precondition-failed" };
    return title === undefined ? { outcome: "unchanged", list: found } : this.#retitle(found, title);
  }

  /**
   * Deletes list `name` with `If-Match`, remembering where it stopped (`reached`: the highest id it
   * gave and its last change number) so that the name made again continues after them.
   */
  remove(name: string, ifMatch: ListIfMatch, reached: () => Continuation): ListResult {
    const found = this.find(name);
    if (typeof found === "string") return { outcome: found };
    if (name === DEFAULT_LIST) return { outcome: "default-kept" };
    if (!matches(ifMatch, found.version)) return { outcome: "precondition-failed" };
    const { highestId, change } = reached();
    this.#lists.delete(name);
    this.#deleted.set(name, { highestId, change });
    this.#change += 1;
    return { outcome: "deleted", name };
  }

  #create(name: string, title: string, { maxLists }: DirectoryLimits): ListResult {
    if (this.#lists.size >= maxLists) return { outcome: "full", maxLists };
    const stopped = this.#deleted.get(name);
    const resume = stopped === undefined ? START : madeAgain(stopped);
    this.#deleted.delete(name);
    this.#change += 1;
    const list = { name, title, version: `${this.#instance}-l${this.#change}` };
    this.#lists.set(name, list);
    return { outcome: "created", list, resume };
  }

  #retitle(found: ListRecord, title: string): ListResult {
    if (found.title === title) return { outcome: "unchanged", list: found };
    this.#change += 1;
    const list = { name: found.name, title, version: `${this.#instance}-l${this.#change}` };
    this.#lists.set(found.name, list);
    return { outcome: "retitled", list };
  }

  #scope(scope: string): Map<string, { readonly fingerprint: string; readonly json: string }> {
    let keys = this.#keys.get(scope);
    if (keys === undefined) {
      keys = new Map();
      this.#keys.set(scope, keys);
    }
    return keys;
  }

  #remember({ scope, key, fingerprint, json }: RememberedListKey, max: number): void {
    const keys = this.#scope(scope);
    keys.set(key, { fingerprint, json });
    for (const oldest of keys.keys()) {
      if (keys.size <= max) break;
      keys.delete(oldest);
    }
  }

  /** A random name no list has had: 130 random bits all but never meet one, but a name is never given twice. */
  #unusedName(): string {
    for (;;) {
      const name = randomListName();
      if (this.find(name) === "not-found") return name;
    }
  }
}

/** Whether `ifMatch` allows a write to a list at `version`: none, `*`, or a list naming it (strong comparison). */
function matches(ifMatch: ListIfMatch, version: string): boolean {
  return ifMatch === undefined || ifMatch === "any" || ifMatch.includes(version);
}
