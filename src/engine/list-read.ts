// A list's version with whether the list exists beside it: what a store of one of many lists
// answers to `read()`, and the store of a name that holds no list.
import { EncodedList, type EventFormat, type ListVersion, type PageQuery } from "../list/encoded-list.ts";
import type { ListMissing, ListRead, ListState, TaskStore } from "./task-store.ts";

/**
 * `version` as it is, with `list` saying whether the list exists. Each member hands on the version's
 * own, so it takes that member's type rather than restating it.
 */
export class StatedVersion implements ListRead {
  readonly #inner: ListVersion;
  readonly list: ListState;

  constructor(inner: ListVersion, list: ListState) {
    this.#inner = inner;
    this.list = list;
  }

  get version() {
    return this.#inner.version;
  }
  get usage() {
    return this.#inner.usage;
  }
  get lastId() {
    return this.#inner.lastId;
  }
  get change() {
    return this.#inner.change;
  }
  get highestId() {
    return this.#inner.highestId;
  }
  get forgotten() {
    return this.#inner.forgotten;
  }
  get changedBytes() {
    return this.#inner.changedBytes;
  }
  body() {
    return this.#inner.body();
  }
  after(id: number) {
    return this.#inner.after(id);
  }
  page(query: PageQuery) {
    return this.#inner.page(query);
  }
  tasksAfter(id: number) {
    return this.#inner.tasksAfter(id);
  }
  bytesAfter(id: number) {
    return this.#inner.bytesAfter(id);
  }
  task(id: number) {
    return this.#inner.task(id);
  }
  eventsAfter(change: number) {
    return this.#inner.eventsAfter(change);
  }
  eventBatches(change: number, through: number, format: EventFormat, batchBytes: number) {
    return this.#inner.eventBatches(change, through, format, batchBytes);
  }
  changesAfter(change: number) {
    return this.#inner.changesAfter(change);
  }
  bytesChangedAfter(change: number) {
    return this.#inner.bytesChangedAfter(change);
  }
}

const missingReads = new Map<"gone" | "not-found", ListRead>();

/**
 * The empty read of a list that does not exist: `state` says whether it was deleted or never
 * created. One for each state, made on first use (Workers refuse work at start-up) and shared.
 */
export function missingRead(state: "gone" | "not-found"): ListRead {
  let read = missingReads.get(state);
  if (read === undefined) {
    read = new StatedVersion(new EncodedList(state).read(), { state });
    missingReads.set(state, read);
  }
  return read;
}

/**
 * The store of a name that holds no list, deleted (`gone`) or never created: each read is the
 * missing read, each write and key call answers that the list is missing, and a reader waits for nothing.
 */
export function missingStore(state: "gone" | "not-found"): TaskStore & { read(): ListRead } {
  const missing: Promise<ListMissing> = Promise.resolve({ outcome: state === "gone" ? "list-gone" : "list-not-found" });
  return {
    read: () => missingRead(state),
    append: () => missing,
    update: () => missing,
    remove: () => missing,
    nextChange: async () => {},
    keys: { all: () => missing, add: () => missing, remove: () => missing, byHash: () => undefined },
  };
}
