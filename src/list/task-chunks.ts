// The list's tasks in chunks of encoded bytes: appended to in place, and copied when a task in them
// is edited or deleted, so that a change costs one chunk, never the list, and no version's bytes move.

const encoder = new TextEncoder();
const COMMA = 0x2c;
/** The third byte from the end of a task's JSON: `u` of `true}`, else `s` of `false}`. */
const TRUE_U = 0x75;
const EMPTY = new Uint8Array(0);
/** The first chunk is small so that a short list takes little memory; each next one doubles, up to {@link CHUNK_BYTES}. */
export const FIRST_CHUNK_BYTES = 4 * 1024;
/**
 * Bytes a chunk grows to before the next task starts a new one. An edit copies one chunk, so this
 * bounds what an edit costs; a GET of the whole list sends one part per chunk, so it is not small.
 */
export const CHUNK_BYTES = 128 * 1024;

/**
 * A chunk as it was at one moment: every task is `,` then its JSON, so chunks join into a list by
 * dropping the first comma. Its arrays are shared with later moments, which only write past `count`.
 */
export interface ChunkView {
  /** The chunk's bytes: `,task,task...`. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly count: number;
  readonly ids: Float64Array;
  /** The change number that created each task. */
  readonly created: Float64Array;
  /** The change number of each task's last change. */
  readonly changed: Float64Array;
  /** Where each task's JSON starts in `bytes`, after its comma. */
  readonly starts: Float64Array;
  /** 1 for each task whose `completed` is true, else 0: a filter reads this, never the JSON. */
  readonly completed: Uint8Array;
}

/** One task of a chunk: where it is and what the list knows of it. */
export interface ChunkTask {
  readonly id: number;
  readonly json: Uint8Array<ArrayBuffer>;
  readonly created: number;
  readonly changed: number;
}

/** The `index`th task of `view`. */
export function taskAt(view: ChunkView, index: number): ChunkTask {
  const start = view.starts[index] ?? 0;
  const end = index + 1 < view.count ? (view.starts[index + 1] ?? 0) - 1 : view.bytes.byteLength;
  return {
    id: view.ids[index] ?? 0,
    json: view.bytes.subarray(start, end),
    created: view.created[index] ?? 0,
    changed: view.changed[index] ?? 0,
  };
}

/** The index of the first task of `view` whose id is greater than `id`, or its count. */
export function indexAfter(view: ChunkView, id: number): number {
  let low = 0;
  let high = view.count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((view.ids[middle] ?? 0) > id) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** A chunk that takes new tasks at its end. */
export class Chunk {
  #bytes: Uint8Array<ArrayBuffer>;
  #used: number;
  #count: number;
  #ids: Float64Array;
  #created: Float64Array;
  #changed: Float64Array;
  #starts: Float64Array;
  #completed: Uint8Array;
  #view: ChunkView | undefined;

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

  get used(): number {
    return this.#used;
  }

  /** The chunk as it is now; the same object until it changes. */
  view(): ChunkView {
    this.#view ??= {
      bytes: this.#bytes.subarray(0, this.#used),
      count: this.#count,
      ids: this.#ids,
      created: this.#created,
      changed: this.#changed,
      starts: this.#starts,
      completed: this.#completed,
    };
    return this.#view;
  }

  /**
   * Whether a task of `bytes` bytes (its comma included) may be added: always to an empty chunk;
   * else when it fits, growing the chunk up to {@link CHUNK_BYTES} if needed.
   */
  takes(bytes: number): boolean {
    if (this.#count === 0 || this.#used + bytes <= this.#bytes.byteLength) return true;
    return this.#used + bytes <= CHUNK_BYTES;
  }

  /** Room for `bytes` more bytes, grown into a new buffer: bytes handed out keep the old one. */
  #room(bytes: number): void {
    if (this.#used + bytes <= this.#bytes.byteLength) return;
    const size = Math.max(Math.min(this.#bytes.byteLength * 2, CHUNK_BYTES), this.#used + bytes);
    const grown = new Uint8Array(size);
    grown.set(this.#bytes.subarray(0, this.#used));
    this.#bytes = grown;
  }

  /** Adds a task at the end given as its JSON bytes. */
  push(json: Uint8Array, id: number, created: number, changed: number): void {
    this.#room(json.byteLength + 1);
    this.#bytes[this.#used] = COMMA;
    this.#bytes.set(json, this.#used + 1);
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
   * See {@link changedChunk}. The bytes and arrays around the task are copied whole, so an edit
   * costs a few block copies of the chunk, not a step per task in it.
   */
  static changed(view: ChunkView, index: number, json: Uint8Array | undefined, change: number, room: number): Chunk {
    const from = (view.starts[index] ?? 1) - 1;
    const to = index + 1 < view.count ? (view.starts[index + 1] ?? 0) - 1 : view.bytes.byteLength;
    const added = json === undefined ? 0 : json.byteLength + 1;
    const shift = added - (to - from);
    // Tasks from `index` on, before the ones after the changed task: 1 when it stays, 0 when it goes.
    const kept = json === undefined ? 0 : 1;
    const count = view.count - 1 + kept;
    const chunk = new Chunk(view.bytes.byteLength + shift + room, Math.max(16, count + 1));
    chunk.#bytes.set(view.bytes.subarray(0, from));
    if (json !== undefined) {
      chunk.#bytes[from] = COMMA;
      chunk.#bytes.set(json, from + 1);
    }
    chunk.#bytes.set(view.bytes.subarray(to), from + added);
    chunk.#used = view.bytes.byteLength + shift;
    chunk.#count = count;
    const copy = (into: Float64Array | Uint8Array, array: Float64Array | Uint8Array) => {
      into.set(array.subarray(0, index + kept));
      into.set(array.subarray(index + 1, view.count), index + kept);
    };
    copy(chunk.#ids, view.ids);
    copy(chunk.#created, view.created);
    copy(chunk.#changed, view.changed);
    copy(chunk.#starts, view.starts);
    copy(chunk.#completed, view.completed);
    if (json !== undefined) {
      chunk.#changed[index] = change;
      chunk.#completed[index] = completedOf(json, json.byteLength);
    }
    for (let at = index + kept; at < count; at++) chunk.#starts[at] = (chunk.#starts[at] ?? 0) + shift;
    return chunk;
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
    this.#completed[this.#count] = completedOf(this.#bytes, this.#used + 1 + length);
    this.#count += 1;
    this.#used += length + 1;
    this.#view = undefined;
  }
}

/**
 * A new chunk: `view` with its `index`th task replaced by `json` at change `change`, or removed
 * when `json` is undefined. `room` is what the new chunk keeps free for appends.
 */
export function changedChunk(
  view: ChunkView,
  index: number,
  json: Uint8Array | undefined,
  change: number,
  room: number,
): Chunk {
  return Chunk.changed(view, index, json, change, room);
}

function grown(array: Float64Array): Float64Array;
function grown(array: Uint8Array): Uint8Array;
function grown(array: Float64Array | Uint8Array): Float64Array | Uint8Array {
  const next = array instanceof Uint8Array ? new Uint8Array(array.length * 2) : new Float64Array(array.length * 2);
  next.set(array);
  return next;
}

/**
 * 1 when the task whose JSON ends at `end` in `bytes` is completed, else 0. Every task's JSON ends
 * with `"completed":true}` or `"completed":false}` (`taskJson` and its SQL forms write it last),
 * so one byte tells, without parsing the task.
 */
function completedOf(bytes: Uint8Array, end: number): number {
  return bytes[end - 3] === TRUE_U ? 1 : 0;
}

/** The first chunk's bytes without their leading comma. */
export function withoutComma(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  return bytes.byteLength === 0 ? EMPTY : bytes.subarray(1);
}
