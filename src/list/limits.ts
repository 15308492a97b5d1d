// The list's two limits, MAX_TASKS and MAX_LIST_BYTES: what an append checks, and what is said of
// a list that is already past them.
import type { ListLimits } from "../config.ts";

/** How much the list holds: its tasks and the bytes of its JSON, brackets and commas included. */
export interface ListUsage {
  readonly tasks: number;
  readonly bytes: number;
}

/**
 * Bytes of tasks appended since a subscriber came that may wait for it, unsent because it does not
 * read, before it is cut off; it can come back with its cursor and misses nothing.
 */
export const FOLLOWER_CUT_OFF_BYTES = 1024 * 1024;

/** Which limit kept a task out. */
export type Limit = "tasks" | "bytes";

/**
 * The limit a list of `usage` breaks if it grows by one task of `added` bytes (its JSON and the
 * comma before it), or undefined when the task fits.
 */
export function limitReached(usage: ListUsage, added: number, limits: ListLimits): Limit | undefined {
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
