import { EncodedList } from "./encoded-list.ts";
import { INITIAL_TASKS, isKnown, type ListRead, type NewTask, type Task, type TaskStore } from "./store.ts";

/**
 * The default store: one list in this isolate's or process's memory, starting from the initial
 * tasks and gone when the isolate or process ends.
 */
export class MemoryStore implements TaskStore {
  readonly #list = new EncodedList(INITIAL_TASKS);
  /** Tells this list apart from other isolates' lists of the same length; made on first use, since Workers refuse random values at start-up. */
  #instance: string | undefined;

  async read(known: readonly string[]): Promise<ListRead> {
    const version = this.#version();
    return isKnown(version, known) ? { version } : { version, body: this.#list.bytes() };
  }

  async append(task: NewTask, maxTasks: number): Promise<Task | undefined> {
    if (this.#list.count >= maxTasks) return undefined;
    const created: Task = { id: this.#list.lastId + 1, title: task.title, completed: task.completed };
    this.#list.push(created);
    return created;
  }

  #version(): string {
    this.#instance ??= crypto.randomUUID().slice(0, 8);
    return `${this.#instance}-${this.#list.count}`;
  }
}
