// The list's tasks in chunks of encoded bytes: appended to in place; an edit is kept beside the
// bytes until the chunk is copied with many of them, and a deletion copies the chunk, so that a
// change costs one chunk at most, never the list, and no version's bytes move.
import { applied, type ChunkOwner, ChunkState, EditLog, editedTask, MAX_EDITS } from "./chunk-edits.ts";
import { type ChunkTask, type ChunkView, indexAfter, putTask, taskEnd } from "./chunk-view.ts";
import { completedAt } from "./task.ts";

const encoder = new TextEncoder();
const COMMA = 0x2c;
/** The first chunk is small so that a short list takes little memory; each next one doubles, up to {@link CHUNK_BYTES}. */
export const FIRST_CHUNK_BYTES = 1024;
/**
 * Bytes a chunk grows to before the next task starts a new one. A deletion, or an edit past
 * {@link MAX_EDITS}, copies one chunk, so this bounds what they cost; a GET of the whole list
 * sends one part per chunk, so it is not small.
 */
export const CHUNK_BYTES = 128 * 1024;

/** A chunk that takes new tasks at its end and edits beside its bytes. */
export class Chunk implements ChunkOwner {
  #bytes: Uint8Array<ArrayBuffer>;
  #used: number;
  #count: number;
  #ids: Float64Array;
  #created: Float64Array;
  #changed: Float64Array;
  #starts: Float64Array;
  #completed: Uint8Array;
  /** The chunk's bytes and arrays as they are now, without the edits beside them. */
  #base: ChunkView | undefined;
  /** Edits not yet in the bytes. */
  #edits: EditLog | undefined;
  #state: ChunkState | undefined;

  /** An empty chunk of `capacity` bytes, with room for `slots` tasks before its arrays grow. */
  constructor(capacity: number, slots = 16) {
    this.#bytes = new Uint8Array(capacity);
    this.#used = 0;
    this.#count = 0;
    this.#ids = new Float64Array(slots);
    this.#created = new Float64Array(slots);
    this.#changed = new Float64Array(slots);
    this.#starts = new Float64Array(slots);
    this.#completed = new Uint8Array(slots);
  }

  get count(): number {
    return this.#count;
  }

  /** Bytes of the chunk's tasks, each with its comma, edits included. */
  get used(): number {
    return this.#used + (this.#edits?.grown ?? 0);
  }

  /** The id of the chunk's `index`th task. */
  idAt(index: number): number {
    return this.#ids[index] ?? 0;
  }

  /** The chunk's ids, for finding a task. */
  ids(): Float64Array {
    return this.#ids;
  }

  /** The `index`th task, edited or not. */
  task(index: number): ChunkTask {
    return editedTask(this.#view(), this.#edits?.view(), index);
  }

  /** The chunk as it is now; the same object until it changes. */
  state(): ChunkState {
    this.#state ??= new ChunkState(this.#view(), this.#edits?.view(), this);
    return this.#state;
  }

  /**
   * Whether a task of `bytes` bytes (its comma included) may be added: always to an empty chunk;
   * else when it fits, growing the chunk up to {@link CHUNK_BYTES} if needed.
   */
  takes(bytes: number): boolean {
    if (this.#count === 0 || this.#used + bytes <= this.#bytes.byteLength) return true;
    return this.used + bytes <= CHUNK_BYTES;
  }

  /** Adds a task at the end given as its JSON bytes. */
  push(json: Uint8Array, id: number, created: number, changed: number): void {
    this.#room(json.byteLength + 1);
    putTask(this.#bytes, this.#used, json);
    this.#counted(json.byteLength, id, created, changed);
  }

  /**
   * Encodes `text` straight after the chunk's bytes and returns its byte length, without counting
   * it yet: {@link commit} adds it. Undefined when the room it might need is not there.
   */
  stage(text: string): number | undefined {
    if (this.#count > 0 && this.#used + 1 + text.length * 3 > this.#bytes.byteLength) return undefined;
    this.#room(1 + text.length * 3);
    // Bytes past the used ones are in no view, so writing them first is safe.
    return encoder.encodeInto(text, this.#bytes.subarray(this.#used + 1)).written;
  }

  /** Counts the task {@link stage} wrote, of `length` bytes. */
  commit(length: number, id: number, created: number, changed: number): void {
    this.#bytes[this.#used] = COMMA;
    this.#counted(length, id, created, changed);
  }

  /**
   * Replaces the `index`th task's JSON by `json`, its own bytes, by change `change`: kept beside the
   * chunk's bytes, which are copied with every edit once there are more than {@link MAX_EDITS}.
   * Returns the change that created the task.
   */
  edit(index: number, json: Uint8Array<ArrayBuffer>, change: number): number {
    const { json: old, created } = this.task(index);
    this.#edits ??= new EditLog(this.#ids.length);
    this.#edits.add(index, old.byteLength, json, change);
    this.#state = undefined;
    if (this.#edits.length > MAX_EDITS) this.#applyEdits();
    return created;
  }

  /**
   * A new chunk: `view` without its `index`th task. The bytes and arrays around the task are
   * copied whole, so a deletion costs a few block copies of the chunk, not a step per task in it.
   */
  static without(view: ChunkView, index: number): Chunk {
    const from = (view.starts[index] ?? 1) - 1;
    const to = taskEnd(view, index);
    const count = view.count - 1;
    const chunk = new Chunk(view.bytes.byteLength - (to - from), Math.max(16, count + 1));
    chunk.#bytes.set(view.bytes.subarray(0, from));
    chunk.#bytes.set(view.bytes.subarray(to), from);
    chunk.#used = view.bytes.byteLength - (to - from);
    chunk.#count = count;
    const copy = (into: Float64Array | Uint8Array, array: Float64Array | Uint8Array) => {
      into.set(array.subarray(0, index));
      into.set(array.subarray(index + 1, view.count), index);
    };
    copy(chunk.#ids, view.ids);
    copy(chunk.#created, view.created);
    copy(chunk.#changed, view.changed);
    copy(chunk.#starts, view.starts);
    copy(chunk.#completed, view.completed);
    for (let at = index; at < count; at++) chunk.#starts[at] = (chunk.#starts[at] ?? 0) - (to - from);
    return chunk;
  }

  #view(): ChunkView {
    this.#base ??= {
      bytes: this.#bytes.subarray(0, this.#used),
      count: this.#count,
      ids: this.#ids,
      created: this.#created,
      changed: this.#changed,
      starts: this.#starts,
      completed: this.#completed,
    };
    return this.#base;
  }

  /** `state` copied with its edits into this chunk, keeping its room, when it is still the chunk's state. */
  copied(state: ChunkState): ChunkView | undefined {
    if (state !== this.#state) return undefined;
    this.#applyEdits();
    return this.#view();
  }

  /** Copies the edits into new bytes and arrays: views handed out keep the old ones. */
  #applyEdits(): void {
    const edits = this.#edits?.view();
    if (edits === undefined) return;
    const capacity = Math.max(this.#bytes.byteLength, this.#used + edits.grown);
    const copy = applied(this.#view(), edits, capacity, this.#ids.length);
    this.#bytes = copy.bytes;
    this.#starts = copy.starts;
    this.#changed = copy.changed;
    this.#completed = copy.completed;
    this.#used += edits.grown;
    this.#edits = undefined;
    this.#base = undefined;
  }

  /** Room for `bytes` more bytes, grown into a new buffer: bytes handed out keep the old one. */
  #room(bytes: number): void {
    if (this.#used + bytes <= this.#bytes.byteLength) return;
    const size = Math.max(Math.min(this.#bytes.byteLength * 2, CHUNK_BYTES), this.#used + bytes);
    const grown = new Uint8Array(size);
    grown.set(this.#bytes.subarray(0, this.#used));
    this.#bytes = grown;
  }

  #counted(length: number, id: number, created: number, changed: number): void {
    if (this.#count === this.#ids.length) {
      this.#ids = grown(this.#ids);
      this.#created = grown(this.#created);
      this.#changed = grown(this.#changed);
      this.#starts = grown(this.#starts);
      this.#completed = grown(this.#completed);
    }
    this.#ids[this.#count] = id;
    this.#created[this.#count] = created;
    this.#changed[this.#count] = changed;
    this.#starts[this.#count] = this.#used + 1;
    this.#completed[this.#count] = completedAt(this.#bytes, this.#used + 1 + length);
    this.#count += 1;
    this.#used += length + 1;
    this.#base = undefined;
    this.#state = undefined;
  }
}

/** The chunk and index of task `id` among `chunks`, in id order, or undefined when none holds it. */
export function locate(chunks: readonly Chunk[], id: number): [number, number] | undefined {
  let low = 0;
  let high = chunks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((chunks[middle]?.idAt(0) ?? 0) > id) high = middle;
    else low = middle + 1;
  }
  const chunk = chunks[low - 1];
  if (chunk === undefined) return undefined;
  const index = indexAfter({ ids: chunk.ids(), count: chunk.count }, id) - 1;
  return index >= 0 && chunk.idAt(index) === id ? [low - 1, index] : undefined;
}

function grown(array: Float64Array): Float64Array;
function grown(array: Uint8Array): Uint8Array;
function grown(array: Float64Array | Uint8Array): Float64Array | Uint8Array {
  const next = array instanceof Uint8Array ? new Uint8Array(array.length * 2) : new Float64Array(array.length * 2);
  next.set(array);
  return next;
}
