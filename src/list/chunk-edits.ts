// Edits of a chunk's tasks, kept beside its bytes until the chunk is copied with them: an edit costs
// its own task, not the chunk, and a chunk is copied once for many edits, or when it is first read whole.
import { type ChunkIds, type ChunkTask, type ChunkView, putTask, taskAt, taskEnd } from "./chunk-view.ts";
import { completedAt } from "./task.ts";

/**
 * Edits a chunk keeps beside its bytes, at most: reading a task looks through them, so they stay
 * few; past them the chunk is copied, once for all of them.
 */
export const MAX_EDITS = 128;

/** A task as an edit left it: its own bytes, never a view of a chunk. */
interface EditedTask {
  readonly index: number;
  readonly json: Uint8Array<ArrayBuffer>;
  readonly changed: number;
  readonly completed: number;
  /** Where the edit before it of the same task is in its log, or -1. */
  readonly previous: number;
}

/**
 * Edits of a chunk not yet in its bytes, in the order they were made: the first `length` of
 * `tasks`, an array later edits only add to, so an edit copies none of the ones before it.
 */
export interface ChunkEdits {
  readonly tasks: readonly EditedTask[];
  readonly length: number;
  /** Bytes the edited tasks' JSON adds to the chunk's (less than 0 when shorter). */
  readonly grown: number;
  /** One more than where each task's last edit is in `tasks`, by task index, or 0: later edits write it too. */
  readonly last: Int32Array;
}

/** The edits a chunk keeps beside its bytes, made one by one; each moment of them is a {@link ChunkEdits}. */
export class EditLog {
  readonly #tasks: EditedTask[] = [];
  #last: Int32Array;
  #grown = 0;
  #view: ChunkEdits | undefined;

  /** An empty log for a chunk of `slots` tasks. */
  constructor(slots: number) {
    this.#last = new Int32Array(slots);
  }

  get length(): number {
    return this.#tasks.length;
  }

  /** Bytes the edits add to the chunk's. */
  get grown(): number {
    return this.#grown;
  }

  /** Edits the `index`th task, whose JSON was `old` bytes, to `json`, by change `change`. */
  add(index: number, old: number, json: Uint8Array<ArrayBuffer>, change: number): void {
    if (index >= this.#last.length) {
      // Moments handed out keep the old array, which holds every edit they see.
      const last = new Int32Array(Math.max(index + 1, this.#last.length * 2));
      last.set(this.#last);
      this.#last = last;
    }
    const previous = (this.#last[index] ?? 0) - 1;
    this.#tasks.push({ index, json, changed: change, completed: completedAt(json, json.byteLength), previous });
    this.#last[index] = this.#tasks.length;
    this.#grown += json.byteLength - old;
    this.#view = undefined;
  }

  /** The edits as they are now, or undefined when there are none; the same object until the next edit. */
  view(): ChunkEdits | undefined {
    if (this.#tasks.length === 0) return undefined;
    this.#view ??= { tasks: this.#tasks, length: this.#tasks.length, grown: this.#grown, last: this.#last };
    return this.#view;
  }
}

/** The `index`th task of `base` as `edits` leave it. */
export function editedTask(base: ChunkView, edits: ChunkEdits | undefined, index: number): ChunkTask {
  const task = edits === undefined ? undefined : lastEdit(edits, index);
  if (task === undefined) return taskAt(base, index);
  return {
    id: base.ids[index] ?? 0,
    json: task.json,
    created: base.created[index] ?? 0,
    changed: task.changed,
    completed: task.completed === 1,
  };
}

/** What of a chunk an edit changes, copied with `edits` in: its bytes and the arrays that follow them. */
export interface Applied {
  /** `capacity` bytes, the chunk's first. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly starts: Float64Array;
  readonly changed: Float64Array;
  readonly completed: Uint8Array;
}

/**
 * `base` with `edits` copied in, in `capacity` bytes and arrays of `slots` tasks (a chunk that
 * takes more tasks keeps room). The runs of tasks between edited ones are copied whole, and the
 * three arrays are carved from one buffer, so the copy is a few allocations and block copies.
 */
export function applied(base: ChunkView, edits: ChunkEdits, capacity: number, slots: number): Applied {
  const bytes = new Uint8Array(capacity);
  const arrays = new ArrayBuffer(slots * 17);
  const starts = new Float64Array(arrays, 0, slots);
  const changed = new Float64Array(arrays, slots * 8, slots);
  const completed = new Uint8Array(arrays, slots * 16, slots);
  changed.set(base.changed.subarray(0, base.count));
  completed.set(base.completed.subarray(0, base.count));
  const last = new Map<number, EditedTask>();
  for (let at = 0; at < edits.length; at++) {
    const task = edits.tasks[at] as EditedTask;
    last.set(task.index, task);
  }
  let written = 0;
  let next = 0;
  for (const task of [...last.values()].sort((a, b) => a.index - b.index)) {
    const index = task.index;
    written = copyRun(base, next, index, bytes, written, starts);
    starts[index] = written + 1;
    written = putTask(bytes, written, task.json);
    changed[index] = task.changed;
    completed[index] = task.completed;
    next = index + 1;
  }
  copyRun(base, next, base.count, bytes, written, starts);
  return { bytes, starts, changed, completed };
}

/** Copies tasks `from` to `to` of `base` into `bytes` at `at`, with their starts; returns where the next byte goes. */
function copyRun(
  base: ChunkView,
  from: number,
  to: number,
  bytes: Uint8Array,
  at: number,
  starts: Float64Array,
): number {
  if (from >= to) return at;
  const start = (base.starts[from] ?? 1) - 1;
  const end = taskEnd(base, to - 1);
  bytes.set(base.bytes.subarray(start, end), at);
  const shift = at - start;
  for (let index = from; index < to; index++) starts[index] = (base.starts[index] ?? 0) + shift;
  return at + end - start;
}

/** The chunk a state was taken from. */
export interface ChunkOwner {
  /** `state` copied with its edits into the chunk, when it is still the chunk's state; else undefined. */
  copied(state: ChunkState): ChunkView | undefined;
}

/**
 * A chunk as it was at one moment, with the edits not yet in its bytes: one task is read through
 * them, and the chunk as one run of bytes ({@link view}) is copied with them once, on first use.
 */
export class ChunkState implements ChunkIds {
  readonly count: number;
  readonly ids: Float64Array;
  /** Bytes of the chunk's tasks, each with its comma. */
  readonly byteLength: number;
  readonly #base: ChunkView;
  readonly #edits: ChunkEdits | undefined;
  #owner: ChunkOwner | undefined;
  #view: ChunkView | undefined;

  /**
   * `base` as `edits` leave it. `owner` copies it with them when it is still its chunk's state (the
   * chunk then keeps the copy, and its room); else this state copies it for itself.
   */
  constructor(base: ChunkView, edits: ChunkEdits | undefined, owner: ChunkOwner) {
    this.count = base.count;
    this.ids = base.ids;
    this.byteLength = base.bytes.byteLength + (edits?.grown ?? 0);
    this.#base = base;
    this.#edits = edits;
    if (edits === undefined) this.#view = base;
    else this.#owner = owner;
  }

  /** The `index`th task. */
  task(index: number): ChunkTask {
    return this.#view === undefined ? editedTask(this.#base, this.#edits, index) : taskAt(this.#view, index);
  }

  /** The chunk as one run of bytes; the same on every call. */
  view(): ChunkView {
    if (this.#view !== undefined) return this.#view;
    let view = this.#owner?.copied(this);
    this.#owner = undefined;
    if (view === undefined) {
      const base = this.#base;
      const { bytes, ...arrays } = applied(base, this.#edits as ChunkEdits, this.byteLength, base.count);
      view = { ...arrays, bytes, count: base.count, ids: base.ids, created: base.created };
    }
    this.#view = view;
    return view;
  }
}

/** The last of `edits` made to the `index`th task, if any: later edits are skipped back through. */
function lastEdit(edits: ChunkEdits, index: number): EditedTask | undefined {
  let at = (edits.last[index] ?? 0) - 1;
  while (at >= edits.length) at = edits.tasks[at]?.previous ?? -1;
  return at < 0 ? undefined : edits.tasks[at];
}
