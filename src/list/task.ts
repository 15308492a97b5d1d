// A task as the list holds it, and its JSON exactly as every response and event carries it.

/** What a client sends to create a task. */
export interface NewTask {
  readonly title: string;
  readonly completed: boolean;
}

/** A task as the list holds it. */
export interface Task extends NewTask {
  readonly id: number;
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

/** A task's JSON starts with these bytes, then its id's digits. */
const ID_PREFIX_BYTES = '{"id":'.length;

/** The id of the task whose JSON is `bytes`: the digits after `{"id":`. */
export function readId(bytes: Uint8Array): number {
  let id = 0;
  for (let at = ID_PREFIX_BYTES; at < bytes.byteLength; at++) {
    const digit = (bytes[at] ?? 0) - 0x30;
    if (digit < 0 || digit > 9) break;
    id = id * 10 + digit;
  }
  return id;
}
