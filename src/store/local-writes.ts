// The checks of an edit or a deletion of a list held in this process, made before the write in the
// same synchronous step: the task, If-Match, then the limits. Memory and SQLite file stores share them.
import type { ListLimits } from "../config.ts";
import type { EncodedList } from "../list/encoded-list.ts";
import { taskVersion } from "../list/list-version.ts";
import { type Task, taskJson } from "../list/task.ts";
import type { IfMatch, RemoveResult, TaskPatch, UpdateResult } from "./store.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** An edit that passed its checks: the task as it will be, its JSON, and the change that makes it. */
export interface PlannedUpdate {
  readonly task: Task;
  readonly text: string;
  readonly json: Uint8Array<ArrayBuffer>;
  readonly change: number;
  readonly version: string;
}

/** Checks an update of task `id` in `list`: the result when it stops there (or changes nothing), else what to write. */
export function planUpdate(
  list: EncodedList,
  id: number,
  patch: TaskPatch,
  limits: ListLimits,
  ifMatch: IfMatch,
): UpdateResult | PlannedUpdate {
  const usage = list.usage;
  const found = list.find(id);
  if (found === undefined) return { outcome: missing(list, id), usage };
  const version = taskVersion(list.instance, id, found.changed);
  if (ifMatch !== undefined && !ifMatch.includes(version)) return { outcome: "precondition-failed", usage };
  const text = decoder.decode(found.json);
  const old = JSON.parse(text) as Task;
  const task: Task = { id, title: patch.title ?? old.title, completed: patch.completed ?? old.completed };
  if (task.title === old.title && task.completed === old.completed) {
    return { outcome: "unchanged", task, json: text, version, usage };
  }
  const newText = taskJson(task);
  const json = encoder.encode(newText) as Uint8Array<ArrayBuffer>;
  const grows = json.byteLength - found.json.byteLength;
  if (grows > 0 && usage.bytes + grows > limits.maxBytes) return { outcome: "full", limit: "bytes", usage };
  const change = list.change + 1;
  return { task, text: newText, json, change, version: taskVersion(list.instance, id, change) };
}

/** Checks a removal of task `id` from `list`: the result when it stops there, else the change that makes it. */
export function planRemove(
  list: EncodedList,
  id: number,
  ifMatch: IfMatch,
): RemoveResult | { readonly change: number } {
  const usage = list.usage;
  const found = list.find(id);
  if (found === undefined) return { outcome: missing(list, id), usage };
  if (ifMatch !== undefined && !ifMatch.includes(taskVersion(list.instance, id, found.changed))) {
    return { outcome: "precondition-failed", usage };
  }
  return { change: list.change + 1 };
}

function missing(list: EncodedList, id: number): "gone" | "not-found" {
  return id >= 1 && id <= list.highestId ? "gone" : "not-found";
}
