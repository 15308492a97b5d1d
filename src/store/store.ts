/** What a client sends to create a task. */
export interface NewTask {
  readonly title: string;
  readonly completed: boolean;
}

/** A task as the list holds it. */
export interface Task extends NewTask {
  readonly id: number;
}

/** The limits an append is checked against, in the same atomic step that adds the task. */
export interface ListLimits {
  /** Most tasks the list may hold (MAX_TASKS). */
  readonly maxTasks: number;
  /** Most bytes the list's JSON may take, brackets and commas included (MAX_LIST_BYTES). */
  readonly maxBytes: number;
}

/**
 * What an append did: the task it added (with its JSON, when the store has made it already), or
 * which limit kept it out.
 */
export type AppendResult = { readonly task: Task; readonly text?: string } | { readonly full: "tasks" | "bytes" };

/** How much the list holds: its tasks and the bytes of its JSON. */
export interface ListUsage {
  readonly tasks: number;
  readonly bytes: number;
}

/**
 * The list's JSON as byte parts to send one after another. Parts are never written to after they
 * are handed out, so a slow reader keeps reading the version it asked for while the list grows.
 */
export interface ListBody {
  readonly parts: readonly Uint8Array<ArrayBuffer>[];
  readonly byteLength: number;
  /** The same JSON as text, for a body short enough to be kept twice. */
  readonly text?: string;
}

/** The list as a GET serves it: its version, and its JSON unless the reader already has it. */
export interface ListRead {
  /** Changes whenever the list changes; safe to put between the quotes of an ETag. */
  readonly version: string;
  /** The list as JSON; absent when `version` was among the versions the reader said it knows. */
  readonly body?: ListBody;
}

/**
 * Where the list lives. A store that holds the list in memory reads synchronously, which keeps a
 * GET free of promises; a remote store answers with a promise.
 */
export interface TaskStore {
  /**
   * Reads the list. `known` holds versions the reader already has (`*` for any): when the current
   * version is one of them the body is left out.
   */
  read(known: readonly string[]): ListRead | Promise<ListRead>;
  /**
   * Appends a task with the next id (the last id plus 1) in one atomic step, unless the list would
   * then break one of `limits`, in which case it adds nothing and says which limit.
   */
  append(task: NewTask, limits: ListLimits): Promise<AppendResult>;
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

/**
 * The limit a list of `usage` breaks if it grows by one task of `added` bytes (its JSON and the
 * comma before it), or undefined when the task fits.
 */
export function limitReached(usage: ListUsage, added: number, limits: ListLimits): "tasks" | "bytes" | undefined {
  if (usage.tasks >= limits.maxTasks) return "tasks";
  if (usage.bytes + added > limits.maxBytes) return "bytes";
  return undefined;
}

/** Says what a list that already breaks a limit means for the service, or undefined when it breaks none. */
export function overLimitWarning(usage: ListUsage, limits: ListLimits): string | undefined {
  const over = [
    ...(usage.tasks > limits.maxTasks ? [`${usage.tasks} tasks, more than MAX_TASKS (${limits.maxTasks})`] : []),
    ...(usage.bytes > limits.maxBytes
      ? [`${usage.bytes} bytes of JSON, more than MAX_LIST_BYTES (${limits.maxBytes})`]
      : []),
  ];
  if (over.length === 0) return undefined;
  return `The list holds ${over.join(" and ")}: it is served as it is, and every POST answers 507 until the limit is raised`;
}

/**
 * The store cannot be reached (a database down, a connection lost). A store throws it rather than
 * a driver's own error, so the app answers 503 with Retry-After instead of 500: the fault is
 * passing, and the service recovers by itself when the store is back.
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}
