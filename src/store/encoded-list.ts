import { type Task, taskJson } from "./store.ts";

const encoder = new TextEncoder();
const OPEN = 0x5b; // [
const COMMA = 0x2c; // ,
const CLOSE = 0x5d; // ]

/**
 * Address space reserved for the list's bytes. A resizable buffer grows in place within it, and
 * the system backs only the pages written, so memory follows the list rather than its capacity and
 * no outgrown copy is left for the garbage collector. A list that outgrows it moves to a larger one.
 */
const RESERVED_BYTES = 64 * 1024 * 1024;

/**
 * The list kept as the bytes of its JSON array. Each task is encoded once, when it is added, so a
 * read costs the same however long the list is, and an append costs the same however long it is.
 */
export class EncodedList {
  /** Holds "[" and the tasks joined by ","; the closing "]" is added to each snapshot. */
  #buffer = new ArrayBuffer(1024, { maxByteLength: RESERVED_BYTES });
  /** Tracks the buffer's length as it grows. */
  #bytes = new Uint8Array(this.#buffer);
  #length = 1;
  #snapshot: Uint8Array<ArrayBuffer> | undefined;
  #count = 0;
  #lastId = 0;

  constructor(tasks: Iterable<Task> = []) {
    this.#bytes[0] = OPEN;
    for (const task of tasks) this.push(task);
  }

  get count(): number {
    return this.#count;
  }

  /** The id of the last task, or 0 when the list is empty. */
  get lastId(): number {
    return this.#lastId;
  }

  /** Adds a task at the end. */
  push(task: Task): void {
    const json = taskJson(task);
    // encodeInto writes at most three bytes per UTF-16 unit; one more for the comma.
    this.#reserve(json.length * 3 + 1);
    if (this.#count > 0) this.#bytes[this.#length++] = COMMA;
    this.#length += encoder.encodeInto(json, this.#bytes.subarray(this.#length)).written;
    this.#count++;
    this.#lastId = task.id;
    this.#snapshot = undefined;
  }

  /** The whole list as JSON bytes. The same array is returned until the list changes, and is never written to. */
  bytes(): Uint8Array<ArrayBuffer> {
    if (this.#snapshot === undefined) {
      const snapshot = new Uint8Array(this.#length + 1);
      snapshot.set(this.#bytes.subarray(0, this.#length));
      snapshot[this.#length] = CLOSE;
      this.#snapshot = snapshot;
    }
    return this.#snapshot;
  }

  #reserve(extra: number): void {
    const needed = this.#length + extra;
    const size = this.#buffer.byteLength;
    if (needed <= size) return;
    const target = Math.max(needed, size * 2);
    if (target <= this.#buffer.maxByteLength) {
      this.#buffer.resize(target);
      return;
    }
    const grown = new ArrayBuffer(target, { maxByteLength: Math.max(RESERVED_BYTES, target * 4) });
    const bytes = new Uint8Array(grown);
    bytes.set(this.#bytes.subarray(0, this.#length));
    this.#buffer = grown;
    this.#bytes = bytes;
  }
}
