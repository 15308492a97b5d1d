// The list kept as the bytes of its JSON array, each task encoded once: any version of it, or the
// tasks after any id, is served as views of those bytes, never as a copy of the list.
import type { ListLimits } from "../config.ts";
import { ChangeLog, type LogEntry } from "./change-log.ts";
import type { ChunkState } from "./chunk-edits.ts";
import { type Limit, type ListUsage, limitReached } from "./limits.ts";
import type { ListEvent, ListVersion } from "./list-version.ts";
import { ChangeJournal, type ChangeKind } from "./recent-changes.ts";
import { Snapshot } from "./snapshot.ts";
import { type CopiedChange, encodeTask, type HeldTask, type StoredList } from "./stored-list.ts";
import { deletedTaskJson, readId, type Task } from "./task.ts";
import { CHUNK_BYTES, Chunk, FIRST_CHUNK_BYTES, locate } from "./task-chunks.ts";

const encoder = new TextEncoder();
/** Limits no list reaches: for a task whose limits were checked before. */
const NO_LIMITS: ListLimits = { maxTasks: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY, maxKeys: 0 };

/** A task's JSON, in bytes of its own, and the change that created it. */
interface JournaledTask {
  readonly json: Uint8Array<ArrayBuffer>;
  readonly created: number;
}

/**
 * The list as the bytes of its JSON array, in chunks of tasks, with the log of its changes. An
 * append writes at the end of the last chunk; an edit is kept beside the chunk it touches and a
 * deletion makes a new copy of it, so versions handed out keep their bytes and a change costs the
 * same however long the list is.
 */
export class EncodedList {
  readonly #instance: string;
  #chunks: Chunk[] = [];
  readonly #log: ChangeLog;
  readonly #journal: ChangeJournal;
  #change = 0;
  #highestId = 0;
  #tasks = 0;
  /** Bytes of all chunks: the list's JSON less its brackets, plus the first task's comma. */
  #bytes = 0;
  #current: ListVersion | undefined;
  /** The chunks' states of the last version made, and the one chunk changed since: -1 none, -2 more. */
  #states: ChunkState[] = [];
  #changedChunk = -2;

  /**
   * An empty list, or one of `tasks`, each created by the change numbered as its id, or a list as a
   * store kept it. `instance` sets its versions apart from every other list's.
   */
  constructor(instance: string, tasks: Iterable<Task> | StoredList = []) {
    this.#instance = instance;
    if (Symbol.iterator in tasks) {
      this.#log = new ChangeLog();
      this.#journal = new ChangeJournal(0);
      for (const task of tasks) this.push(encodeTask(task), task.id, task.id);
      return;
    }
    const entries: LogEntry[] = [];
    for (const task of tasks.tasks) {
      this.#append(task.json, task.id, task.created, task.changed);
      entries.push({ change: task.changed, id: task.id, deleted: false });
    }
    for (const { id, change } of tasks.deletions) entries.push({ change, id, deleted: true });
    entries.sort((a, b) => a.change - b.change);
    this.#log = new ChangeLog(entries, tasks.forgotten);
    this.#change = Math.max(tasks.change, entries.at(-1)?.change ?? 0);
    this.#highestId = Math.max(tasks.highestId, this.#highestId);
    this.#journal = new ChangeJournal(this.#change);
  }

  /** Sets this list's versions apart from every other list's. */
  get instance(): string {
    return this.#instance;
  }

  /** The id of the last task, or 0 when the list is empty. */
  get lastId(): number {
    const last = this.#chunks.at(-1);
    return last === undefined ? 0 : last.idAt(last.count - 1);
  }

  /** The highest id the list ever gave: the next task's is one more. */
  get highestId(): number {
    return this.#highestId;
  }

  /** The number of the list's last change. */
  get change(): number {
    return this.#change;
  }

  /** The list's last change as its event, when the journal has it: a version need not be read to find it. */
  get lastChange(): ListEvent | undefined {
    const last = this.#journal.last;
    return last?.change === this.#change ? last : undefined;
  }

  /** Bytes carried by every change this list took since it was made: see {@link ListVersion.changedBytes}. */
  get changedBytes(): number {
    return this.#journal.total;
  }

  get usage(): ListUsage {
    return { tasks: this.#tasks, bytes: Math.max(this.#bytes - 1, 0) + 2 };
  }

  /** Adds a task at the end, given as its JSON, by change `change` (the next one when not given). */
  push(json: Uint8Array, id = readId(json), change = this.#change + 1): void {
    this.#append(json, id, change, change);
    this.#recorded(change, id, "task");
  }

  /**
   * Adds a task given as its JSON text by the next change, unless the list would then break one of
   * `limits`, in which case it adds nothing and says which limit. The text is encoded straight into
   * the list's chunk: encoding it apart first would cost an array and a copy per task.
   */
  pushText(json: string, id: number, limits: ListLimits = NO_LIMITS): Limit | undefined {
    const last = this.#chunks.at(-1);
    const written = last?.stage(json);
    if (last === undefined || written === undefined) {
      const bytes = encoder.encode(json);
      const limit = limitReached(this.usage, bytes.byteLength + (this.#tasks > 0 ? 1 : 0), limits);
      if (limit === undefined) this.push(bytes, id);
      return limit;
    }
    const limit = limitReached(this.usage, written + (this.#tasks > 0 ? 1 : 0), limits);
    if (limit !== undefined) return limit;
    const change = this.#change + 1;
    last.commit(written, id, change, change);
    this.#touched(this.#chunks.length - 1);
    this.#counted(id, written + 1);
    this.#recorded(change, id, "task");
    return undefined;
  }

  /** The task whose id is `id`, with its change numbers, or undefined when the list does not hold it. */
  find(id: number): HeldTask | undefined {
    const found = locate(this.#chunks, id);
    if (found === undefined) return undefined;
    const [chunk, index] = found;
    return (this.#chunks[chunk] as Chunk).task(index);
  }

  /** The change number of the last deletion forgotten once one more deletion is made. */
  forgottenAfterDeletion(): number {
    return this.#log.forgottenAfterDeletion();
  }

  /** Replaces task `id`'s JSON by change `change` (the next one when not given); false when there is no such task. */
  replace(id: number, json: Uint8Array<ArrayBuffer>, change = this.#change + 1): boolean {
    const created = this.#replaced(id, json, change);
    if (created === undefined) return false;
    this.#recorded(change, id, "update", true, { json, created });
    return true;
  }

  /** Deletes task `id` by change `change` (the next one when not given); false when there is no such task. */
  remove(id: number, change = this.#change + 1): boolean {
    if (!this.#removed(id)) return false;
    this.#recorded(change, id, "delete");
    return true;
  }

  /**
   * Applies the changes another copy of the list made after this one's last change, in change
   * order, and its counters. With `every` they are every change, each with its task as that change
   * left it (a creation is numbered as its task's `created`), kept for subscribers as made; else
   * each task's last change only, and the changes they stand for are no longer kept one by one.
   * False when they do not fit this copy (a new task before one it holds, an edit of a task it does
   * not hold): it was not the list as it was, and must start again.
   */
  copy(changes: readonly CopiedChange[], highestId: number, every = false): boolean {
    const fresh = changes.filter((change) => change.change > this.#change);
    this.#highestId = Math.max(this.#highestId, highestId);
    if (every) return fresh.every((change) => this.#copied(change));
    const added = new Set<CopiedChange>();
    for (const entry of fresh) {
      if (entry.json === undefined) this.#removed(entry.id);
      else if (this.#replaced(entry.id, entry.json, entry.change) === undefined) added.add(entry);
    }
    const appended = [...added].sort((a, b) => a.id - b.id);
    if ((appended[0]?.id ?? Number.POSITIVE_INFINITY) <= this.lastId) return false;
    for (const { id, json, created, change } of appended) this.#append(json ?? new Uint8Array(), id, created, change);
    for (const entry of fresh) {
      const kind = entry.json === undefined ? "delete" : added.has(entry) ? "task" : "update";
      this.#recorded(entry.change, entry.id, kind, false);
    }
    if (fresh.length > 0) this.#journal.restart(this.#change);
    return true;
  }

  /** Applies and records one of every change another copy made; false when it does not fit this copy. */
  #copied({ id, json, created, change }: CopiedChange): boolean {
    if (json !== undefined && created === change) {
      if (id <= this.lastId) return false;
      this.#append(json, id, created, change);
    } else if (json === undefined ? !this.#removed(id) : this.#replaced(id, json, change) === undefined) {
      return false;
    }
    this.#recorded(change, id, json === undefined ? "delete" : created === change ? "task" : "update");
    return true;
  }

  /** Task `id` edited to `json`, which the list keeps as it is: the change that created the task, or undefined when there is no such task. */
  #replaced(id: number, json: Uint8Array<ArrayBuffer>, change: number): number | undefined {
    const found = locate(this.#chunks, id);
    if (found === undefined) return undefined;
    const [at, index] = found;
    const chunk = this.#chunks[at] as Chunk;
    const old = chunk.used;
    const created = chunk.edit(index, json, change);
    this.#touched(at);
    this.#bytes += chunk.used - old;
    this.#current = undefined;
    return created;
  }

  #removed(id: number): boolean {
    const found = locate(this.#chunks, id);
    if (found === undefined) return false;
    const [chunk, index] = found;
    const view = (this.#chunks[chunk] as Chunk).state().view();
    const kept = Chunk.without(view, index);
    this.#bytes -= view.bytes.byteLength - kept.used;
    this.#tasks -= 1;
    if (kept.count === 0) this.#chunks.splice(chunk, 1);
    else this.#chunks[chunk] = kept;
    this.#touched(-2);
    this.#current = undefined;
    return true;
  }

  /** The list as it is now; the same object until the list changes. */
  read(): ListVersion {
    if (this.#current !== undefined) return this.#current;
    // Versions share the array of the chunks' states until a chunk changes; then it is copied.
    const at = this.#changedChunk;
    if (at === -2) this.#states = this.#chunks.map((chunk) => chunk.state());
    else if (at >= 0) {
      this.#states = this.#states.slice();
      this.#states[at] = (this.#chunks[at] as Chunk).state();
    }
    this.#changedChunk = -1;
    this.#current = new Snapshot({
      instance: this.#instance,
      chunks: this.#states,
      log: this.#log.view(),
      journal: this.#journal.view(),
      change: this.#change,
      highestId: this.#highestId,
      usage: this.usage,
      lastId: this.lastId,
    });
    return this.#current;
  }

  /** Notes that chunk `at` changed since the last version, or -2 for chunks added or removed. */
  #touched(at: number): void {
    this.#changedChunk = this.#changedChunk === -1 || this.#changedChunk === at ? at : -2;
  }

  #append(json: Uint8Array, id: number, created: number, changed: number): void {
    const bytes = json.byteLength + 1;
    let last = this.#chunks.at(-1);
    if (last === undefined || !last.takes(bytes)) {
      last = new Chunk(Math.min(CHUNK_BYTES, Math.max(FIRST_CHUNK_BYTES, this.#bytes, bytes)));
      this.#chunks.push(last);
      this.#touched(-2);
    }
    last.push(json, id, created, changed);
    this.#touched(this.#chunks.length - 1);
    this.#counted(id, bytes);
  }

  #counted(id: number, bytes: number): void {
    this.#tasks += 1;
    this.#bytes += bytes;
    this.#highestId = Math.max(this.#highestId, id);
    this.#current = undefined;
  }

  /** Records a change; `edited` is an edit's task, whose JSON the journal shares with the list. */
  #recorded(change: number, id: number, kind: ChangeKind, journaled = true, edited?: JournaledTask): void {
    this.#change = Math.max(this.#change, change);
    this.#log.record(change, id, kind === "delete", kind !== "task");
    if (journaled) {
      // The journal keeps its own copy of a task in a chunk: a view would hold the whole chunk.
      const held = edited ?? (kind === "delete" ? undefined : this.find(id));
      const json = held === edited ? edited?.json : held?.json.slice();
      const entry = json ?? (encoder.encode(deletedTaskJson(id)) as Uint8Array<ArrayBuffer>);
      this.#journal.record(change, kind, id, held?.created ?? 0, entry);
    }
    this.#log.compact((entry, task) => this.find(task)?.changed === entry);
    this.#current = undefined;
  }
}
