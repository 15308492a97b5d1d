// A page of the list: the tasks after an id, only those in one state when asked, at most so many,
// as views of the chunks' bytes. Tasks side by side in a chunk are one view, and no task is parsed.
import type { ChunkState } from "./chunk-edits.ts";

const OPEN = Uint8Array.of(0x5b); // [
const CLOSE = Uint8Array.of(0x5d); // ]
/** A page of many short runs is copied into blocks of this size, so it is not sent a task or two at a time. */
const BLOCK_BYTES = 64 * 1024;

/** What a reader asks of the list. */
export interface PageQuery {
  /** Only the tasks whose id is greater. */
  readonly after: number;
  /** Only the tasks whose `completed` is this, when given. */
  readonly completed?: boolean | undefined;
  /** At most this many tasks, when given. */
  readonly limit?: number | undefined;
}

/** A page as parts of a JSON array, and where the next page starts. */
export interface PageParts {
  readonly parts: Uint8Array<ArrayBuffer>[];
  /** Bytes of the JSON array, brackets included. */
  readonly byteLength: number;
  /** The id of the page's last task when more tasks past it fit the query, else undefined. */
  readonly next: number | undefined;
}

/**
 * The tasks of `chunks` from the `index`th of chunk `chunk` on that fit `query`. It stops at the
 * first fitting task past `limit`, which only says there is a next page.
 */
export function pageParts(
  chunks: readonly ChunkState[],
  [chunk, index]: [number, number],
  query: PageQuery,
): PageParts {
  const { completed, limit = Number.POSITIVE_INFINITY } = query;
  const wanted = completed === undefined ? undefined : completed ? 1 : 0;
  const parts = [OPEN];
  let byteLength = OPEN.byteLength + CLOSE.byteLength;
  let taken = 0;
  let lastId = 0;
  for (let at = chunk; at < chunks.length; at++, index = 0) {
    const view = (chunks[at] as ChunkState).view();
    const flags = view.completed;
    while (index < view.count) {
      let from = index;
      if (wanted !== undefined) while (from < view.count && flags[from] !== wanted) from++;
      if (from === view.count) break;
      if (taken === limit) return { parts: [...parts, CLOSE], byteLength, next: lastId };
      const stop = Math.min(view.count, from + limit - taken);
      let to = from + 1;
      if (wanted === undefined) to = stop;
      else while (to < stop && flags[to] === wanted) to++;
      // From the comma before the run's first task to the end of its last; the page's first comma goes.
      const start = (view.starts[from] ?? 1) - (taken === 0 ? 0 : 1);
      const end = to < view.count ? (view.starts[to] ?? 0) - 1 : view.bytes.byteLength;
      const run = view.bytes.subarray(start, end);
      parts.push(run);
      byteLength += run.byteLength;
      taken += to - from;
      lastId = view.ids[to - 1] ?? 0;
      index = to;
    }
  }
  parts.push(CLOSE);
  return { parts, byteLength, next: undefined };
}

/** `parts` with each run of short ones copied into one block; long ones stay views. */
export function packed(parts: readonly Uint8Array<ArrayBuffer>[]): Uint8Array<ArrayBuffer>[] {
  const blocks: Uint8Array<ArrayBuffer>[] = [];
  let block: Uint8Array<ArrayBuffer> | undefined;
  let used = 0;
  const flush = () => {
    if (block !== undefined && used > 0) blocks.push(block.subarray(0, used));
    block = undefined;
    used = 0;
  };
  for (const part of parts) {
    if (part.byteLength >= BLOCK_BYTES) {
      flush();
      blocks.push(part);
      continue;
    }
    if (block === undefined || used + part.byteLength > block.byteLength) {
      flush();
      block = new Uint8Array(BLOCK_BYTES);
    }
    block.set(part, used);
    used += part.byteLength;
  }
  flush();
  return blocks;
}
