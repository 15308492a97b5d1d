import { EncodedList } from "./encoded-list.ts";
import {
  type AppendResult,
  INITIAL_TASKS,
  isKnown,
  type ListLimits,
  type ListRead,
  type ListUsage,
  limitReached,
  type NewTask,
  type Task,
  type TaskStore,
  taskJson,
} from "./store.ts";

const encoder = new TextEncoder();

/**
 * The default store: one list in this isolate's or process's memory, starting from the initial
 * tasks and gone when the isolate or process ends.
 */
export class MemoryStore implements TaskStore {
  readonly #list = new EncodedList(INITIAL_TASKS);
  /** Tells this list apart from other isolates' lists of the same length; made on first use, since Workers refuse random values at start-up. */
  #instance: string | undefined;

  get usage(): ListUsage {
    return this.#list.usage;
  }

  read(known: readonly string[]): ListRead {
    const version = this.#version();
    return isKnown(version, known) ? { version } : { version, body: this.#list.body() };
  }

  async append(task: NewTask, limits: ListLimits): Promise<AppendResult> {
    const created: Task = { id: this.#list.lastId + 1, title: task.title, completed: task.completed };
    const text = taskJson(created);
    const json = encoder.encode(text);
    const full = limitReached(this.#list.usage, this.#list.addedBytes(json), limits);
    if (full !== undefined) return { full };
    this.#list.pushEncoded(json, 1, created.id);
    return { task: created, text };
  }

  #version(): string {
    this.#instance ??= crypto.randomUUID().slice(0, 8);
    return `${this.#instance}-${this.#list.count}`;
  }
}
