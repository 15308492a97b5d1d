import { type Task, taskJson } from "./store.ts";

const encoder = new TextEncoder();
const OPEN = 0x5b; // [
const COMMA = 0x2c; // ,
const CLOSE = 0x5d; // ]

/**
 * The list kept as the bytes of its JSON array. Each task is encoded once, when it is added, so a
 * read costs the same however long the list is, and an append costs the same however long it is.
 */
export class EncodedList {
  /** Holds "[" and the tasks joined by ","; the closing "]" is added to each snapshot. */
  #buffer = new Uint8Array(1024);
  #length = 1;
  #snapshot: Uint8Array<ArrayBuffer> | undefined;
  #count = 0;
  #lastId = 0;

  constructor(tasks: Iterable<Task> = []) {
    this.#buffer[0] = OPEN;
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
    if (this.#count > 0) this.#buffer[this.#length++] = COMMA;
    this.#length += encoder.encodeInto(json, this.#buffer.subarray(this.#length)).written;
    this.#count++;
    this.#lastId = task.id;
    this.#snapshot = undefined;
  }

  /** The whole list as JSON bytes. The same array is returned until the list changes, and is never written to. */
  bytes(): Uint8Array<ArrayBuffer> {
    if (this.#snapshot === undefined) {
      const snapshot = new Uint8Array(this.#length + 1);
      snapshot.set(this.#buffer.subarray(0, this.#length));
      snapshot[this.#length] = CLOSE;
      this.#snapshot = snapshot;
    }
    return this.#snapshot;
  }

  #reserve(extra: number): void {
    const needed = this.#length + extra;
    if (needed <= this.#buffer.length) return;
    const grown = new Uint8Array(Math.max(needed, this.#buffer.length * 2));
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
  }
}
