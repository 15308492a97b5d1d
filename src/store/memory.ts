// The default store: the list in this isolate's or process's memory, gone when it ends.
import type { ListLimits } from "../config.ts";
import { EncodedList, type ListVersion } from "../list/encoded-list.ts";
import type { Continuation } from "../list/list-directory.ts";
import { INITIAL_TASKS, type NewTask, type Task, taskJson } from "../list/task.ts";
import { ChangeSignal } from "./change-signal.ts";
import { planRemove, planUpdate } from "./local-writes.ts";
import { RememberedKeys } from "./remembered-keys.ts";
import type * as seam from "./store.ts";

/**
 * One list in this isolate's or process's memory, starting from the initial tasks. Reads are
 * synchronous, so a GET makes no promise.
 */
export class MemoryStore implements seam.TaskStore {
  #list: EncodedList | undefined;
  readonly #keys = new RememberedKeys();
  readonly #changes: ChangeSignal;
  readonly #after: Continuation | undefined;

  /**
   * With `pollMs`, readers waiting for a change look again on a timer of their own (see
   * {@link ChangeSignal}). With `after`, the list starts empty, its ids and change numbers after
   * those (a list other than the default one, or one made again); without, from the initial tasks.
   */
  constructor(options: { readonly pollMs?: number; readonly after?: Continuation } = {}) {
    this.#changes = new ChangeSignal(() => this.#encoded().changedBytes, options.pollMs);
    this.#after = options.after;
  }

  /** The highest id the list gave and its last change number: where it would continue if made again. */
  get reached(): Continuation {
    const list = this.#encoded();
    return { highestId: list.highestId, change: list.change };
  }

  read(): ListVersion {
    return this.#encoded().read();
  }

  async append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult> {
    const list = this.#encoded();
    const known = key === undefined ? undefined : this.#keys.match(key);
    if (known === "another-task") return { outcome: "key-reused", usage: list.usage };
    if (known !== undefined) {
      return { outcome: "replayed", task: JSON.parse(known.json) as Task, json: known.json, usage: list.usage };
    }
    const created: Task = { id: list.highestId + 1, title: task.title, completed: task.completed };
    const json = taskJson(created);
    const limit = list.pushText(json, created.id, limits);
    if (limit !== undefined) return { outcome: "full", limit, usage: list.usage };
    if (key !== undefined) this.#keys.remember(key, created.id, limits.maxKeys, json);
    this.#changes.notify();
    return { outcome: "added", task: created, json, usage: list.usage };
  }

  async update(
    id: number,
    patch: seam.TaskPatch,
    limits: ListLimits,
    ifMatch?: seam.IfMatch,
  ): Promise<seam.UpdateResult> {
    const list = this.#encoded();
    const planned = planUpdate(list, id, patch, limits, ifMatch);
    if ("outcome" in planned) return planned;
    list.replace(id, planned.json, planned.change);
    this.#changes.notify();
    const { task, text, version } = planned;
    return { outcome: "updated", task, json: text, version, usage: list.usage };
  }

  async remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult> {
    const list = this.#encoded();
    const planned = planRemove(list, id, ifMatch);
    if ("outcome" in planned) return planned;
    list.remove(id, planned.change);
    this.#changes.notify();
    return { outcome: "deleted", usage: list.usage };
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    if (bytesPast !== undefined) return this.#changes.waitPast(bytesPast, signal);
    return this.#changes.wait(() => this.#encoded().change > change, signal);
  }

  /** Made on first use: its random instance id tells this list apart from other isolates' lists of the same length, and Workers refuse random values at start-up. */
  #encoded(): EncodedList {
    const after = this.#after;
    // A cursor from before a list made again cannot be brought up to date: it gets a reset.
    const tasks =
      after === undefined
        ? INITIAL_TASKS
        : { tasks: [], deletions: [], change: after.change, highestId: after.highestId, forgotten: after.change };
    this.#list ??= new EncodedList(crypto.randomUUID().slice(0, 8), tasks);
    return this.#list;
  }
}
