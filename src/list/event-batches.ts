// A backlog of events written straight from the list's chunks into batches of bytes, each event
// framed as a subscriber receives it: no object per task, and one array per batch to write.
import { entryAfter, type LogView } from "./change-log.ts";
import type { ChunkState } from "./chunk-edits.ts";
import { type ChunkView, indexAfter, taskEnd } from "./chunk-view.ts";
import type { EventBatch, EventFormat, ListEvent } from "./list-version.ts";

/** What a backlog's batches are written from: a version's chunks and log. */
export interface BacklogSource {
  readonly chunks: readonly ChunkState[];
  readonly log: LogView;
}

const OPEN_ID = new TextEncoder().encode('{"id":');
const CLOSE_ID = 0x7d; // }
/** Where the events of a batch start, written into by each batch in turn and copied out at its end. */
let bounds = new Uint32Array(1024);

/**
 * The events of the tasks whose last change is after `after` and at most `through`, in change
 * order, as batches of about `batchBytes` (one event alone may be more), written in `format`:
 * `task` for a task created after `after`, else `update`; `delete` only when `after` is not 0.
 */
export function* backlogBatches(
  { chunks, log }: BacklogSource,
  after: number,
  through: number,
  format: EventFormat,
  batchBytes: number,
): Generator<EventBatch> {
  const { head, kinds, tail, framed } = format;
  const fixed = head.byteLength + tail.byteLength;
  let out = new Uint8Array(0);
  let at = 0;
  let count = 0;
  let last = 0;
  // Where the next task in id order is: in a list changed only by appends it is the next event's.
  let chunk = 0;
  let index = 0;
  let view: ChunkView | undefined;
  for (let entry = entryAfter(log, after); entry < log.length; entry++) {
    const change = log.changes[entry] ?? 0;
    if (change > through) break;
    const id = log.ids[entry] ?? 0;
    let start = 0;
    let end = 0;
    let kind: ListEvent["event"] = "delete";
    if (log.deleted[entry] === 1) {
      // A subscriber that holds nothing has nothing to delete.
      if (after === 0) continue;
    } else {
      if (view === undefined || view.ids[index] !== id) {
        [chunk, index] = place(chunks, id);
        view = chunks[chunk]?.view();
      }
      if (view === undefined || view.ids[index] !== id || view.changed[index] !== change) continue;
      start = view.starts[index] ?? 0;
      end = taskEnd(view, index);
      kind = (view.created[index] ?? 0) > after ? "task" : "update";
    }
    const idDigits = kind === "delete" ? digits(id) : 0;
    const changeDigits = digits(change);
    const kindBytes = kinds[kind];
    const json = kind === "delete" ? OPEN_ID.byteLength + idDigits + 1 : end - start;
    const payload = fixed + changeDigits + kindBytes.byteLength + json;
    const size = payload + (framed ? frameHeaderBytes(payload) : 0);
    if (at + size > out.byteLength) {
      if (count > 0) {
        yield batch(out, at, count, last);
        at = 0;
        count = 0;
      }
      out = new Uint8Array(Math.max(batchBytes + (batchBytes >>> 2), size));
    }
    if (count === bounds.length) bounds = grown(bounds);
    bounds[count] = at;
    count += 1;
    last = change;
    if (framed) at = writeFrameHeader(out, at, payload);
    at = put(out, at, head);
    at = writeNumber(out, at, change, changeDigits);
    at = put(out, at, kindBytes);
    if (kind === "delete") {
      at = put(out, at, OPEN_ID);
      at = writeNumber(out, at, id, idDigits);
      out[at++] = CLOSE_ID;
    } else {
      at = copy(out, at, (view as ChunkView).bytes, start, end);
      index += 1;
      if (index === (view as ChunkView).count) {
        chunk += 1;
        index = 0;
        view = chunks[chunk]?.view();
      }
    }
    at = put(out, at, tail);
    if (at >= batchBytes) {
      yield batch(out, at, count, last);
      out = new Uint8Array(0);
      at = 0;
      count = 0;
    }
  }
  if (count > 0) yield batch(out, at, count, last);
}

/** The chunk and index of task `id`, or of where it would be. */
function place(chunks: readonly ChunkState[], id: number): [number, number] {
  let low = 0;
  let high = chunks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((chunks[middle]?.ids[0] ?? 0) > id) high = middle;
    else low = middle + 1;
  }
  const chunk = Math.max(low - 1, 0);
  const state = chunks[chunk];
  return state === undefined ? [chunks.length, 0] : [chunk, Math.max(indexAfter(state, id) - 1, 0)];
}

function batch(out: Uint8Array<ArrayBuffer>, end: number, count: number, last: number): EventBatch {
  const starts = new Uint32Array(count + 1);
  starts.set(bounds.subarray(0, count));
  starts[count] = end;
  return { bytes: out.subarray(0, end), bounds: starts, last };
}

/** Bytes of the header of a WebSocket frame that carries `payload` bytes. */
function frameHeaderBytes(payload: number): number {
  return payload < 126 ? 2 : payload < 0x10000 ? 4 : 10;
}

/** Writes the header of a final, unmasked text frame of `payload` bytes; returns where the payload goes. */
function writeFrameHeader(out: Uint8Array, at: number, payload: number): number {
  out[at] = 0x81;
  if (payload < 126) {
    out[at + 1] = payload;
    return at + 2;
  }
  if (payload < 0x10000) {
    out[at + 1] = 126;
    out[at + 2] = payload >>> 8;
    out[at + 3] = payload & 0xff;
    return at + 4;
  }
  out[at + 1] = 127;
  // Payloads here stay far below 2³² bytes: the four high bytes are 0.
  out.fill(0, at + 2, at + 6);
  out[at + 6] = payload >>> 24;
  out[at + 7] = (payload >>> 16) & 0xff;
  out[at + 8] = (payload >>> 8) & 0xff;
  out[at + 9] = payload & 0xff;
  return at + 10;
}

/** Copies `bytes` into `out` at `at`; returns where they end. A loop beats a call for so few bytes. */
function put(out: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) out[at + k] = bytes[k] as number;
  return at + bytes.length;
}

/** Copies `bytes` from `start` to `end` into `out` at `at`; returns where they end: by a loop when too few to pay for a view. */
function copy(out: Uint8Array, at: number, bytes: Uint8Array<ArrayBuffer>, start: number, end: number): number {
  const length = end - start;
  if (length > 16) out.set(bytes.subarray(start, end), at);
  else for (let k = 0; k < length; k++) out[at + k] = bytes[start + k] as number;
  return at + length;
}

/** The number of decimal digits of a whole number. */
function digits(value: number): number {
  let count = 1;
  // Powers of ten stay exact as doubles far past the 15 digits a change number has.
  for (let bound = 10; value >= bound; bound *= 10) count += 1;
  return count;
}

/** Writes a whole number of `count` decimal digits into `bytes` at `at`; returns where they end. */
function writeNumber(bytes: Uint8Array, at: number, value: number, count: number): number {
  let rest = value;
  for (let place = at + count - 1; place >= at; place--) {
    const next = Math.floor(rest / 10);
    bytes[place] = 0x30 + rest - next * 10;
    rest = next;
  }
  return at + count;
}

function grown(array: Uint32Array): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(array.length * 2);
  next.set(array);
  return next;
}
