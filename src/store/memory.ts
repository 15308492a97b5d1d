// The default store: the list in this isolate's or process's memory, gone when it ends.
import type { ListLimits } from "../config.ts";
import { EncodedList, type ListVersion } from "../list/encoded-list.ts";
import { limitReached } from "../list/limits.ts";
import { INITIAL_TASKS, type NewTask, type Task, taskJson } from "../list/task.ts";
import { ChangeSignal } from "./change-signal.ts";
import type { AppendResult, TaskStore } from "./store.ts";

const encoder = new TextEncoder();

/**
 * One list in this isolate's or process's memory, starting from the initial tasks. Reads are
 * synchronous, so a GET makes no promise.
 */
export class MemoryStore implements TaskStore {
  #list: EncodedList | undefined;
  readonly #changes: ChangeSignal;

  /** With `pollMs`, readers waiting for a change look again on a timer of their own (see {@link ChangeSignal}). */
  constructor(options: { readonly pollMs?: number } = {}) {
    this.#changes = new ChangeSignal(options.pollMs);
  }

  read(): ListVersion {
    return this.#encoded().read();
  }

  async append(task: NewTask, limits: ListLimits): Promise<AppendResult> {
    const list = this.#encoded();
    const created: Task = { id: list.lastId + 1, title: task.title, completed: task.completed };
    const json = taskJson(created);
    const bytes = encoder.encode(json);
    const limit = limitReached(list.usage, list.addedBytes(bytes), limits);
    if (limit !== undefined) return { outcome: "full", limit, usage: list.usage };
    list.push(bytes, created.id);
    this.#changes.notify();
    return { outcome: "added", task: created, json, usage: list.usage };
  }

  nextChange(lastId: number, signal: AbortSignal): Promise<void> {
    return this.#changes.wait(() => this.#encoded().lastId > lastId, signal);
  }

  /** Made on first use: its random instance id tells this list apart from other isolates' lists of the same length, and Workers refuse random values at start-up. */
  #encoded(): EncodedList {
    this.#list ??= new EncodedList(crypto.randomUUID().slice(0, 8), INITIAL_TASKS);
    return this.#list;
  }
}
