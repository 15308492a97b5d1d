// The default store: the list in this isolate's or process's memory, gone when it ends.
import type { ListLimits } from "../config.ts";
import { EncodedList, type ListVersion } from "../list/encoded-list.ts";
import { INITIAL_TASKS, type NewTask, type Task, taskJson } from "../list/task.ts";
import { ChangeSignal } from "./change-signal.ts";
import { RememberedKeys } from "./remembered-keys.ts";
import type { AppendResult, IdempotencyKey, TaskStore } from "./store.ts";

const decoder = new TextDecoder();

/**
 * One list in this isolate's or process's memory, starting from the initial tasks. Reads are
 * synchronous, so a GET makes no promise.
 */
export class MemoryStore implements TaskStore {
  #list: EncodedList | undefined;
  readonly #keys = new RememberedKeys();
  readonly #changes: ChangeSignal;

  /** With `pollMs`, readers waiting for a change look again on a timer of their own (see {@link ChangeSignal}). */
  constructor(options: { readonly pollMs?: number } = {}) {
    this.#changes = new ChangeSignal(options.pollMs);
  }

  read(): ListVersion {
    return this.#encoded().read();
  }

  async append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): Promise<AppendResult> {
    const list = this.#encoded();
    const known = key === undefined ? undefined : this.#keys.match(key);
    if (known === "another-task") return { outcome: "key-reused", usage: list.usage };
    if (known !== undefined) {
      const kept = list.find(known.taskId);
      if (kept !== undefined) {
        const json = decoder.decode(kept.json);
        return { outcome: "replayed", task: JSON.parse(json) as Task, json, usage: list.usage };
      }
    }
    const created: Task = { id: list.lastId + 1, title: task.title, completed: task.completed };
    const json = taskJson(created);
    const limit = list.pushText(json, created.id, limits);
    if (limit !== undefined) return { outcome: "full", limit, usage: list.usage };
    if (key !== undefined) this.#keys.remember(key, created.id, limits.maxKeys);
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
