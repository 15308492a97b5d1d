// Edits of a chunk's tasks, kept beside its bytes until the chunk is copied with them: an edit costs
// its own task, not the chunk, and a chunk is copied once for many edits, or when it is first read whole.
import { type ChunkIds, type ChunkTask, type ChunkView, completedOf, putTask, taskAt, taskEnd } from "./chunk-view.ts";

/**
 * Edits a chunk keeps beside its bytes, at most: reading a task looks through them, and one more
 * edit copies them, so they stay few; past them the chunk is copied, once for all of them.
 */
export const MAX_EDITS = 32;

/** A task as an edit left it: its own bytes, never a view of a chunk. */
interface EditedTask {
  readonly json: Uint8Array<ArrayBuffer>;
  readonly changed: number;
  readonly completed: number;
}

/** Edits of a chunk not yet in its bytes, by task index. Never changed: an edit makes new ones. */
export interface ChunkEdits {
  /** Indexes of the edited tasks, ascending. */
  readonly indexes: readonly number[];
  readonly tasks: readonly EditedTask[];
  /** Bytes the edited tasks' JSON adds to the chunk's (less than 0 when shorter). */
  readonly grown: number;
}

/** `edits` and the `index`th task of `base` edited to `json` by change `change`. */
export function withEdit(
  base: ChunkView,
  edits: ChunkEdits | undefined,
  index: number,
  json: Uint8Array<ArrayBuffer>,
  change: number,
): ChunkEdits {
  const task = { json, changed: change, completed: completedOf(json, json.byteLength) };
  const old = editedTask(base, edits, index).json.byteLength;
  const indexes = edits === undefined ? [] : [...edits.indexes];
  const tasks = edits === undefined ? [] : [...edits.tasks];
  const at = edits === undefined ? -1 : editAt(edits, index);
  if (at >= 0) tasks[at] = task;
  else {
    const before = -at - 1;
    indexes.splice(before, 0, index);
    tasks.splice(before, 0, task);
  }
  return { indexes, tasks, grown: (edits?.grown ?? 0) + json.byteLength - old };
}

/** The `index`th task of `base` as `edits` leave it. */
export function editedTask(base: ChunkView, edits: ChunkEdits | undefined, index: number): ChunkTask {
  const at = edits === undefined ? -1 : editAt(edits, index);
  const task = at < 0 ? undefined : edits?.tasks[at];
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
  let written = 0;
  let next = 0;
  for (let at = 0; at < edits.indexes.length; at++) {
    const index = edits.indexes[at] ?? 0;
    const task = edits.tasks[at] as EditedTask;
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
  readonly #copy: (state: ChunkState) => ChunkView | undefined;
  #view: ChunkView | undefined;

  /**
   * `base` as `edits` leave it. `copy` copies it with them when it is still its chunk's moment
   * (the chunk then keeps the copy, and its room); else this state copies it for itself.
   */
  constructor(base: ChunkView, edits: ChunkEdits | undefined, copy: (state: ChunkState) => ChunkView | undefined) {
    this.count = base.count;
    this.ids = base.ids;
    this.byteLength = base.bytes.byteLength + (edits?.grown ?? 0);
    this.#base = base;
    this.#edits = edits;
    this.#copy = copy;
    if (edits === undefined) this.#view = base;
  }

  /** The `index`th task. */
  task(index: number): ChunkTask {
    return this.#view === undefined ? editedTask(this.#base, this.#edits, index) : taskAt(this.#view, index);
  }

  /** The chunk as one run of bytes; the same on every call. */
  view(): ChunkView {
    if (this.#view !== undefined) return this.#view;
    let view = this.#copy(this);
    if (view === undefined) {
      const base = this.#base;
      const { bytes, ...arrays } = applied(base, this.#edits as ChunkEdits, this.byteLength, base.count);
      view = { ...arrays, bytes, count: base.count, ids: base.ids, created: base.created };
    }
    this.#view = view;
    return view;
  }
}

/** The position of `index` in `edits.indexes`, or -(where it would go) - 1. */
function editAt(edits: ChunkEdits, index: number): number {
  let low = 0;
  let high = edits.indexes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const at = edits.indexes[middle] ?? 0;
    if (at === index) return middle;
    if (at < index) low = middle + 1;
    else high = middle;
  }
  return -low - 1;
}
