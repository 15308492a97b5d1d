// The list held in memory and the rules of every write to it: each write is decided here, once,
// against the list as it is, into a result and the change to persist; a store persists the change,
// then the list applies it.
import type { ListLimits } from "../config.ts";
import type { EncodedList } from "./encoded-list.ts";
import { limitReached } from "./limits.ts";
import type { ListVersion } from "./list-version.ts";
import { type ListEvent, taskVersion } from "./list-version.ts";
import { type KnownKeys, type RememberedKey, RememberedKeys } from "./remembered-keys.ts";
import type { HeldTask } from "./stored-list.ts";
import { type NewTask, type Task, taskJson, taskJsonOf, titleJsonIn } from "./task.ts";
import type {
  AppendResult,
  IdempotencyKey,
  IfMatch,
  RemoveResult,
  TaskPatch,
  UpdateResult,
  WriteResult,
} from "./writes.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A task added: its row, and the Idempotency-Key that came with it, with the keys of its scope it pushes out. */
export interface AddChange {
  readonly kind: "add";
  readonly change: number;
  readonly task: Task;
  /** The task's JSON, as the list serves it. */
  readonly text: string;
  readonly key?: IdempotencyKey;
  readonly forgetKeys: readonly string[];
}

/** A task edited: its row as it now is. */
export interface UpdateChange {
  readonly kind: "update";
  readonly change: number;
  /** The change that created the task. */
  readonly created: number;
  readonly task: Task;
  /** The task's JSON as UTF-8, as the list serves it. */
  readonly json: Uint8Array<ArrayBuffer>;
}

/** A task deleted, and the deletions forgotten with it: every one up to `forgotten`. */
export interface DeleteChange {
  readonly kind: "delete";
  readonly change: number;
  readonly id: number;
  readonly created: number;
  readonly forgotten: number;
}

/** What a write changes, for a store to persist: exactly one row of tasks, with what goes with it. */
export type ListChange = AddChange | UpdateChange | DeleteChange;

/** A write decided: its result, and the change to persist when it makes one. */
export interface Decision<R extends WriteResult> {
  readonly result: R;
  readonly change?: ListChange;
}

/**
 * A list held in memory, its tasks and its Idempotency-Keys, and the rules of each write. Deciding
 * changes nothing: {@link apply} does, once the store has persisted the change.
 */
export class HeldList {
  readonly #tasks: EncodedList;
  readonly #keys: KnownKeys;

  /** `keys` are the list's keys, or those of them a write needs (a store that keeps the rest elsewhere). */
  constructor(tasks: EncodedList, keys: Iterable<RememberedKey> | KnownKeys = []) {
    this.#tasks = tasks;
    this.#keys = Symbol.iterator in keys ? new RememberedKeys(keys) : keys;
  }

  /** The list as it is now. */
  read(): ListVersion {
    return this.#tasks.read();
  }

  /** The number of the list's last change. */
  get change(): number {
    return this.#tasks.change;
  }

  /** The list's last change as its event, when the list's journal has it. */
  get lastChange(): ListEvent | undefined {
    return this.#tasks.lastChange;
  }

  /** The running count of bytes the list's changes carried, which a reader that stopped waits on. */
  get changedBytes(): number {
    return this.#tasks.changedBytes;
  }

  /** Sets this list's versions apart from every other list's. */
  get instance(): string {
    return this.#tasks.instance;
  }

  /**
   * An append: a known key's task as first returned (or refused, for another task) before any
   * limit, else the task with the next id unless it breaks one of `limits`.
   */
  append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): Decision<AppendResult> {
    const list = this.#tasks;
    const usage = list.usage;
    const known = key === undefined ? undefined : this.#keys.match(key);
    if (known === "another-task") return { result: { outcome: "key-reused", usage } };
    if (known !== undefined) {
      const replayed = JSON.parse(known.json) as Task;
      return { result: { outcome: "replayed", task: replayed, json: known.json, usage } };
    }
    const created: Task = { id: list.highestId + 1, title: task.title, completed: task.completed };
    const text = taskJson(created);
    const added = utf8Length(text) + (usage.tasks > 0 ? 1 : 0);
    const limit = limitReached(usage, added, limits);
    if (limit !== undefined) return { result: { outcome: "full", limit, usage } };
    const forgetKeys = key === undefined ? [] : this.#keys.pushedOut(key.scope, limits.maxKeys);
    const after = { tasks: usage.tasks + 1, bytes: usage.bytes + added };
    return {
      result: { outcome: "added", task: created, json: text, usage: after },
      change: { kind: "add", change: list.change + 1, task: created, text, forgetKeys, ...(key && { key }) },
    };
  }

  /**
   * An update, checked in this order: the task, `ifMatch`, then MAX_LIST_BYTES (only a task that
   * grows can break it). A patch that changes nothing is no change.
   */
  update(id: number, patch: TaskPatch, limits: ListLimits, ifMatch: IfMatch): Decision<UpdateResult> {
    const list = this.#tasks;
    const usage = list.usage;
    const found = this.#checked(id, ifMatch);
    if ("outcome" in found) return { result: found };
    const { task: held, version } = found;
    // Whether the patch changes anything is read from the bytes, so a new title needs no decoding of the old.
    const titleJson =
      patch.title === undefined
        ? decoder.decode(titleJsonIn(held.json, id, held.completed))
        : JSON.stringify(patch.title);
    const completed = patch.completed ?? held.completed;
    const text = taskJsonOf(id, { title: titleJson, completed: String(completed) });
    const task: Task = { id, title: patch.title ?? (JSON.parse(titleJson) as string), completed };
    const json = encoder.encode(text) as Uint8Array<ArrayBuffer>;
    if (sameBytes(json, held.json)) return { result: { outcome: "unchanged", task, json: text, version, usage } };
    const grows = json.byteLength - held.json.byteLength;
    if (grows > 0 && usage.bytes + grows > limits.maxBytes)
      return { result: { outcome: "full", limit: "bytes", usage } };
    const change = list.change + 1;
    return {
      result: {
        outcome: "updated",
        task,
        json: text,
        version: taskVersion(list.instance, id, change),
        usage: { tasks: usage.tasks, bytes: usage.bytes + grows },
      },
      change: { kind: "update", change, created: held.created, task, json },
    };
  }

  /** A removal, checked in this order: the task, then `ifMatch`. */
  remove(id: number, ifMatch: IfMatch): Decision<RemoveResult> {
    const list = this.#tasks;
    const usage = list.usage;
    const found = this.#checked(id, ifMatch);
    if ("outcome" in found) return { result: found };
    const bytes = usage.bytes - found.task.json.byteLength - (usage.tasks > 1 ? 1 : 0);
    return {
      result: { outcome: "deleted", usage: { tasks: usage.tasks - 1, bytes } },
      change: {
        kind: "delete",
        change: list.change + 1,
        id,
        created: found.task.created,
        forgotten: list.forgottenAfterDeletion(),
      },
    };
  }

  /**
   * The write's one path once decided: its change, if it makes one, persisted by `persist` (which
   * throws, and then the list is as it was), then applied; the decision's result.
   */
  commit<R extends WriteResult>({ result, change }: Decision<R>, persist: (change: ListChange) => void): R {
    if (change === undefined) return result;
    persist(change);
    this.apply(change);
    return result;
  }

  /** Makes a change decided on this list as it still is, once the store has persisted it. */
  apply(change: ListChange): void {
    const list = this.#tasks;
    if (change.kind === "add") {
      list.pushText(change.text, change.task.id);
      if (change.key !== undefined) this.#keys.remember(change.key, change.task.id, change.text, change.forgetKeys);
    } else if (change.kind === "update") {
      list.replace(change.task.id, change.json, change.change);
    } else {
      list.remove(change.id, change.change);
    }
  }

  /** Task `id` and its version, or why a write to it stops: it was never given, it is gone, or `ifMatch` names another version. */
  #checked(
    id: number,
    ifMatch: IfMatch,
  ):
    | { task: HeldTask; version: string }
    | Extract<WriteResult, { outcome: "not-found" | "gone" | "precondition-failed" }> {
    const list = this.#tasks;
    const usage = list.usage;
    const task = list.find(id);
    if (task === undefined) return { outcome: id >= 1 && id <= list.highestId ? "gone" : "not-found", usage };
    const version = taskVersion(list.instance, id, task.changed);
    if (ifMatch !== undefined && !ifMatch.includes(version)) return { outcome: "precondition-failed", usage };
    return { task, version };
  }
}

/** Whether `a` and `b` hold the same bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let at = 0; at < a.byteLength; at++) if (a[at] !== b[at]) return false;
  return true;
}

/** Bytes of `text` in UTF-8, counted without encoding it (lone surrogates count as the 3 bytes of U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      at += 1;
    } else bytes += 2;
  }
  return bytes;
}
