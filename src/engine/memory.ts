// The default store: the list in this isolate's or process's memory, gone when it ends.
import { EncodedList } from "../list/encoded-list.ts";
import { HeldList } from "../list/held-list.ts";
import type { Continuation } from "../list/list-directory.ts";
import { INITIAL_TASKS } from "../list/task.ts";
import { HeldListStore } from "./held-store.ts";
import { newInstance } from "./new-history.ts";

/**
 * One list in this isolate's or process's memory, starting from the initial tasks. Reads are
 * synchronous, so a GET makes no promise. Its random instance id (64 bits, as every store's) tells this
 * list apart from other isolates' lists of the same length.
 */
export class MemoryStore extends HeldListStore {
  /**
   * With `pollMs`, readers waiting for a change look again on a timer of their own. With `after`,
   * the list starts empty, its ids and change numbers after those (a list other than the default
   * one, or one made again); without, from the initial tasks.
   */
  constructor(options: { readonly pollMs?: number; readonly after?: Continuation } = {}) {
    const { after } = options;
    const tasks =
      after === undefined
        ? INITIAL_TASKS
        : { tasks: [], deletions: [], change: after.change, highestId: after.highestId, forgotten: after.change };
    super(() => new HeldList(new EncodedList(newInstance(), tasks)), undefined, options);
  }
}
