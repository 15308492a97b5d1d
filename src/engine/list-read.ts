// A read of a list as stores answer it, one object per version and state, and the read and the
// store of a name that holds no list.
import { EncodedList } from "../list/encoded-list.ts";
import type { ListVersion } from "../list/list-version.ts";
import { missingList } from "../list/writes.ts";
import type { ListMissing, ListRead, ListState, TaskStore } from "./task-store.ts";

const missingReads = new Map<"gone" | "not-found", ListRead>();

/**
 * The empty read of a list that does not exist: `state` says whether it was deleted or never
 * created. One for each state, made on first use (Workers refuse work at start-up) and shared.
 */
export function missingRead(state: "gone" | "not-found"): ListRead {
  let read = missingReads.get(state);
  if (read === undefined) {
    read = { version: new EncodedList(state).read(), list: { state } };
    missingReads.set(state, read);
  }
  return read;
}

/**
 * The store of a name that holds no list, deleted (`gone`) or never created: each read is the
 * missing read, each write and key call answers that the list is missing, and a reader waits for nothing.
 */
export function missingStore(state: "gone" | "not-found"): TaskStore & { read(): ListRead } {
  const missing: Promise<ListMissing> = Promise.resolve(missingList(state));
  return {
    read: () => missingRead(state),
    append: () => missing,
    update: () => missing,
    remove: () => missing,
    nextChange: async () => {},
    keys: { all: () => missing, add: () => missing, remove: () => missing, byHash: () => undefined },
  };
}

/**
 * A read of `version` with `list` beside it, the same object again while both are the last read's
 * (the state compared by value, as a store elsewhere answers a new one each time): one object per
 * version and state, not per read.
 */
export function readOf(last: ListRead | undefined, version: ListVersion, list?: ListState): ListRead {
  if (last?.version === version && sameState(last.list, list)) return last;
  return list === undefined ? { version } : { version, list };
}

/** Whether two states of a list say the same. */
function sameState(a: ListState | undefined, b: ListState | undefined): boolean {
  if (a?.state === "live" && b?.state === "live") return a.version === b.version && a.title === b.title;
  return a?.state === b?.state;
}
