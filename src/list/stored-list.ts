// What a store keeps of a list and gives back to make it again, and the changes another copy of the
// list made: tasks as JSON bytes with their change numbers, remembered deletions and counters.
import { type Task, taskJson } from "./task.ts";

const encoder = new TextEncoder();

/** A task as a list keeps it: its JSON, the change that created it and its last change. */
export interface StoredTask {
  readonly id: number;
  readonly json: Uint8Array;
  readonly created: number;
  readonly changed: number;
}

/** A task the list holds, with what a write reads of it without parsing its JSON. */
export interface HeldTask extends StoredTask {
  readonly completed: boolean;
}

/** A list as a store kept it: its tasks in id order, its remembered deletions in change order, and its counters. */
export interface StoredList {
  readonly tasks: Iterable<StoredTask>;
  readonly deletions: Iterable<{ readonly id: number; readonly change: number }>;
  readonly change: number;
  readonly highestId: number;
  /** The change number of the last deletion forgotten, or 0. */
  readonly forgotten: number;
}

/** A change another copy of the list made: a task as it now is, or its deletion (no `json`). */
export interface CopiedChange {
  readonly id: number;
  readonly change: number;
  readonly created: number;
  readonly json?: Uint8Array<ArrayBuffer>;
}

/** A task's JSON as UTF-8, with its keys in the order id, title, completed. */
export function encodeTask(task: Task): Uint8Array<ArrayBuffer> {
  return encoder.encode(taskJson(task)) as Uint8Array<ArrayBuffer>;
}
