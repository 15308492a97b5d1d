// A chunk of the list's tasks as it was at one moment, one run of bytes with what the list knows of
// each task beside it, and how its tasks are read: the shape every reader of a chunk's bytes takes.

const COMMA = 0x2c;
const EMPTY = new Uint8Array(0);

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

/** One task of a chunk: its JSON and what the list knows of it. */
export interface ChunkTask {
  readonly id: number;
  readonly json: Uint8Array<ArrayBuffer>;
  readonly created: number;
  readonly changed: number;
  readonly completed: boolean;
}

/** The ids of a chunk's tasks, in order: what finds a task without reading its bytes. */
export interface ChunkIds {
  readonly ids: Float64Array;
  readonly count: number;
}

/** The `index`th task of `view`. */
export function taskAt(view: ChunkView, index: number): ChunkTask {
  const start = view.starts[index] ?? 0;
  return {
    id: view.ids[index] ?? 0,
    json: view.bytes.subarray(start, taskEnd(view, index)),
    created: view.created[index] ?? 0,
    changed: view.changed[index] ?? 0,
    completed: view.completed[index] === 1,
  };
}

/** Where the `index`th task's JSON ends in `view.bytes`: before the next task's comma, or at the end. */
export function taskEnd(view: ChunkView, index: number): number {
  return index + 1 < view.count ? (view.starts[index + 1] ?? 0) - 1 : view.bytes.byteLength;
}

/** The index of the first task of `chunk` whose id is greater than `id`, or its count. */
export function indexAfter(chunk: ChunkIds, id: number): number {
  let low = 0;
  let high = chunk.count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((chunk.ids[middle] ?? 0) > id) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Writes `,` then `json` into `bytes` at `at`, and returns where the next byte goes. */
export function putTask(bytes: Uint8Array, at: number, json: Uint8Array): number {
  bytes[at] = COMMA;
  bytes.set(json, at + 1);
  return at + 1 + json.byteLength;
}

/** The first chunk's bytes without their leading comma. */
export function withoutComma(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  return bytes.byteLength === 0 ? EMPTY : bytes.subarray(1);
}
