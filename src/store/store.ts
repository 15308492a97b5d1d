/** What a client sends to create a task. */
export interface NewTask {
  readonly title: string;
  readonly completed: boolean;
}

/** A task as the list holds it. */
export interface Task extends NewTask {
  readonly id: number;
}

/** The list as a GET serves it: its version, and its JSON body unless the reader already has it. */
export interface ListRead {
  /** Changes whenever the list changes; safe to put between the quotes of an ETag. */
  readonly version: string;
  /** The list as JSON; absent when `version` was among the versions the reader said it knows. */
  readonly body?: Uint8Array<ArrayBuffer>;
}

/** Where the list lives. Implementations are asynchronous so that a remote store fits the same shape. */
export interface TaskStore {
  /**
   * Reads the list. `known` holds versions the reader already has (`*` for any): when the current
   * version is one of them the body is left out.
   */
  read(known: readonly string[]): Promise<ListRead>;
  /**
   * Appends a task with the next id (the last id plus 1) in one atomic step, unless the list
   * already holds `maxTasks` tasks, in which case it adds nothing and returns undefined.
   */
  append(task: NewTask, maxTasks: number): Promise<Task | undefined>;
}

/** The tasks every new list starts with. */
export const INITIAL_TASKS: readonly Task[] = [
  { id: 1, title: "Read the task list specification", completed: true },
  { id: 2, title: "Build the task list service", completed: false },
];

/** Encodes a task as JSON with its keys always in the order id, title, completed. */
export function taskJson(task: Task): string {
  return `{"id":${task.id},"title":${JSON.stringify(task.title)},"completed":${task.completed}}`;
}

/** Whether a reader that knows these versions already has `version`. */
export function isKnown(version: string, known: readonly string[]): boolean {
  return known.includes(version) || known.includes("*");
}
