// A list's version with whether the list exists beside it: what a store of one of many lists
// answers to `read()`.
import {
  EncodedList,
  type EncodedTask,
  type EventFormat,
  type JsonBytes,
  type ListEvent,
  type ListEventBatches,
  type ListEvents,
  type ListPage,
  type ListVersion,
  type PageQuery,
  type TaskRead,
} from "../list/encoded-list.ts";
import type { ListUsage } from "../list/limits.ts";
import type { ListRead, ListState } from "./store.ts";

/** `version` as it is, with `list` saying whether the list exists. */
export class StatedVersion implements ListRead {
  readonly #inner: ListVersion;
  readonly list: ListState;

  constructor(inner: ListVersion, list: ListState) {
    this.#inner = inner;
    this.list = list;
  }

  get version(): string {
    return this.#inner.version;
  }
  get usage(): ListUsage {
    return this.#inner.usage;
  }
  get lastId(): number {
    return this.#inner.lastId;
  }
  get change(): number {
    return this.#inner.change;
  }
  get highestId(): number {
    return this.#inner.highestId;
  }
  get forgotten(): number {
    return this.#inner.forgotten;
  }
  get changedBytes(): number {
    return this.#inner.changedBytes;
  }
  body(): JsonBytes {
    return this.#inner.body();
  }
  after(id: number): JsonBytes {
    return this.#inner.after(id);
  }
  page(query: PageQuery): ListPage {
    return this.#inner.page(query);
  }
  tasksAfter(id: number): Iterable<EncodedTask> {
    return this.#inner.tasksAfter(id);
  }
  bytesAfter(id: number): number {
    return this.#inner.bytesAfter(id);
  }
  task(id: number): TaskRead {
    return this.#inner.task(id);
  }
  eventsAfter(change: number): ListEvents {
    return this.#inner.eventsAfter(change);
  }
  eventBatches(change: number, through: number, format: EventFormat, batchBytes: number): ListEventBatches {
    return this.#inner.eventBatches(change, through, format, batchBytes);
  }
  changesAfter(change: number): readonly ListEvent[] | undefined {
    return this.#inner.changesAfter(change);
  }
  bytesChangedAfter(change: number): number {
    return this.#inner.bytesChangedAfter(change);
  }
}

/** An empty version read for a list that does not exist: `state` says whether it was deleted or never created. */
export function missingRead(state: "gone" | "not-found"): ListRead {
  return new StatedVersion(new EncodedList(state).read(), { state });
}
