// The list kept as the bytes of its JSON array, each task encoded once: any version of it, or the
// tasks after any id, is served as views of those bytes, never as a copy of the list.
import type { ListLimits } from "../config.ts";
import { type Limit, type ListUsage, limitReached } from "./limits.ts";
import { type Task, taskJson } from "./task.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const OPEN = 0x5b; // [
const COMMA = 0x2c; // ,
const CLOSE = Uint8Array.of(0x5d); // ]
const EMPTY = Uint8Array.of(OPEN, 0x5d);
/** A task's JSON starts with these bytes, then its id's digits. */
const ID_PREFIX_BYTES = '{"id":'.length;

/** The first page is small so that a short list takes little memory; each next one doubles, up to {@link PAGE_BYTES}. */
const FIRST_PAGE_BYTES = 4 * 1024;
const PAGE_BYTES = 1024 * 1024;
/**
 * JSON up to this size is answered as one array, copied once, which every runtime sends fastest
 * (a stream of a few parts costs workerd several times a fixed body). Larger JSON is answered as
 * views of the list's pages, never copied: however many readers hold however many versions, the
 * list is in memory once. The bound keeps what slow readers of old versions can pin small.
 */
const CONTIGUOUS_BYTES = 256 * 1024;
/**
 * JSON up to this size is also offered as text, for runtimes that send text with the head in one
 * write; larger JSON goes as bytes, where one more write is nothing beside the copy of a text.
 */
const TEXT_BYTES = 16 * 1024;

/** JSON as byte parts to send one after another; parts are never written to after they are handed out. */
export interface JsonBytes {
  readonly parts: readonly Uint8Array<ArrayBuffer>[];
  readonly byteLength: number;
  /** The same JSON as text, when it is short enough to be kept twice. */
  readonly text?: string;
}

/** One task's JSON, as the list holds it. */
export interface EncodedTask {
  readonly id: number;
  readonly json: Uint8Array<ArrayBuffer>;
}

/** The list as it was after one change. Later appends never change what it holds. */
export interface ListVersion {
  /** Tells this version apart from every other version of every list; safe between an ETag's quotes. */
  readonly version: string;
  readonly usage: ListUsage;
  /** The id of the last task, or 0 when the list is empty. */
  readonly lastId: number;
  /** The whole list as a JSON array; the same bytes on every call. */
  body(): JsonBytes;
  /** The tasks after id `id`, in id order, as a JSON array: `[]` when there are none. */
  after(id: number): JsonBytes;
  /** The tasks after id `id`, in id order, each as its own JSON. */
  tasksAfter(id: number): Iterable<EncodedTask>;
  /** Bytes of the JSON of the tasks after id `id`, the commas between them included. */
  bytesAfter(id: number): number;
}

/** A task's JSON as UTF-8, with its keys in the order id, title, completed. */
export function encodeTask(task: Task): Uint8Array<ArrayBuffer> {
  return encodeText(taskJson(task));
}

function encodeText(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text) as Uint8Array<ArrayBuffer>;
}

/**
 * The list as the bytes of its JSON array, in pages that are only ever appended to, with where
 * each task starts. A task never spans two pages, so each one is a single view. An append costs
 * the same however long the list is, and so does a read.
 */
export class EncodedList {
  readonly #instance: string;
  /** Pages before the current one, each cut to the bytes written in it. */
  readonly #full: Uint8Array<ArrayBuffer>[] = [];
  /** Where each full page ends, counted over the bytes written in all pages. */
  readonly #fullEnds: number[] = [];
  #page = new Uint8Array(FIRST_PAGE_BYTES);
  #pageUsed = 0;
  /** Bytes written, the opening "[" included; the closing "]" is added to each body. */
  #length = 0;
  /** Where each task's JSON starts, counted over the bytes written in all pages. */
  #starts = new Float64Array(64);
  #count = 0;
  #firstId = 0;
  #lastId = 0;
  /** Whether ids run without a gap from the first, so a task's index follows from its id. */
  #contiguous = true;
  #current: ListVersion | undefined;

  /** An empty list, or one of `tasks`. `instance` sets its versions apart from every other list's. */
  constructor(instance: string, tasks: Iterable<Task> = []) {
    this.#instance = instance;
    this.#page[0] = OPEN;
    this.#pageUsed = 1;
    this.#length = 1;
    for (const task of tasks) this.push(encodeTask(task), task.id);
  }

  get lastId(): number {
    return this.#lastId;
  }

  get usage(): ListUsage {
    return { tasks: this.#count, bytes: this.#length + 1 };
  }

  /** Adds a task at the end, given as its JSON; `id` is its id, read from the JSON when not given. */
  push(json: Uint8Array, id = readId(json, 0)): void {
    const comma = this.#count > 0 ? 1 : 0;
    const unit = json.byteLength + comma;
    if (unit > this.#page.byteLength - this.#pageUsed) this.#newPage(unit);
    if (comma === 1) this.#page[this.#pageUsed] = COMMA;
    this.#page.set(json, this.#pageUsed + comma);
    this.#added(unit, id);
  }

  /** Counts a task whose `unit` bytes (its JSON and the comma before it) were just written after the page's used bytes. */
  #added(unit: number, id: number): void {
    const comma = this.#count > 0 ? 1 : 0;
    if (this.#count === this.#starts.length) {
      const grown = new Float64Array(this.#starts.length * 2);
      grown.set(this.#starts);
      this.#starts = grown;
    }
    this.#starts[this.#count] = this.#length + comma;
    if (this.#count === 0) this.#firstId = id;
    else if (id !== this.#lastId + 1) this.#contiguous = false;
    this.#count += 1;
    this.#lastId = id;
    this.#pageUsed += unit;
    this.#length += unit;
    this.#current = undefined;
  }

  /**
   * Adds a task given as its JSON text, unless the list would then break one of `limits`, in which
   * case it adds nothing and says which limit. The text is encoded straight into the list's page:
   * encoding it apart first would cost an array and a copy per task.
   */
  pushText(json: string, id: number, limits: ListLimits): Limit | undefined {
    const comma = this.#count > 0 ? 1 : 0;
    // UTF-8 takes at most 3 bytes per UTF-16 unit. A page without that much room left is rare: the
    // task is encoded apart then, so that a refused one changes nothing.
    if (json.length * 3 + comma > this.#page.byteLength - this.#pageUsed) {
      const bytes = encodeText(json);
      const limit = limitReached(this.usage, bytes.byteLength + comma, limits);
      if (limit === undefined) this.push(bytes, id);
      return limit;
    }
    // Bytes past the page's used ones are in no version's view, so writing them first is safe.
    const { written } = encoder.encodeInto(json, this.#page.subarray(this.#pageUsed + comma));
    const limit = limitReached(this.usage, written + comma, limits);
    if (limit !== undefined) return limit;
    if (comma === 1) this.#page[this.#pageUsed] = COMMA;
    this.#added(written + comma, id);
    return undefined;
  }

  /** Adds tasks given as their JSON joined by commas, with the byte length of each. */
  pushJoined(json: Uint8Array, lengths: readonly number[]): void {
    let offset = 0;
    for (const length of lengths) {
      this.push(json.subarray(offset, offset + length));
      offset += length + 1;
    }
  }

  /** The task whose id is `id`, as the list holds it, or undefined when there is none. */
  find(id: number): EncodedTask | undefined {
    for (const task of this.read().tasksAfter(id - 1)) return task.id === id ? task : undefined;
    return undefined;
  }

  /** The list as it is now; the same object until the list changes. */
  read(): ListVersion {
    this.#current ??= this.#snapshot();
    return this.#current;
  }

  #newPage(unit: number): void {
    this.#full.push(this.#page.subarray(0, this.#pageUsed));
    this.#fullEnds.push(this.#length);
    const size = Math.max(Math.min(this.#page.byteLength * 2, PAGE_BYTES), unit);
    this.#page = new Uint8Array(size);
    this.#pageUsed = 0;
  }

  #snapshot(): ListVersion {
    const pages = [...this.#full, this.#page.subarray(0, this.#pageUsed)];
    const ends = [...this.#fullEnds, this.#length];
    return new Snapshot(
      this.#instance,
      pages,
      ends,
      this.#starts,
      this.#count,
      this.#firstId,
      this.#lastId,
      this.#contiguous,
    );
  }
}

/** A version of an {@link EncodedList}: views of the bytes written up to one moment. */
class Snapshot implements ListVersion {
  readonly version: string;
  readonly usage: ListUsage;
  readonly lastId: number;
  readonly #pages: readonly Uint8Array<ArrayBuffer>[];
  /** Where each page ends, counted over the bytes of all pages. */
  readonly #ends: readonly number[];
  readonly #starts: Float64Array;
  readonly #count: number;
  readonly #firstId: number;
  readonly #contiguous: boolean;
  #body: JsonBytes | undefined;

  constructor(
    instance: string,
    pages: readonly Uint8Array<ArrayBuffer>[],
    ends: readonly number[],
    starts: Float64Array,
    count: number,
    firstId: number,
    lastId: number,
    contiguous: boolean,
  ) {
    this.#pages = pages;
    this.#ends = ends;
    this.#starts = starts;
    this.#count = count;
    this.#firstId = firstId;
    this.#contiguous = contiguous;
    this.lastId = lastId;
    this.version = `${instance}-${count}`;
    this.usage = { tasks: count, bytes: this.#length + 1 };
  }

  get #length(): number {
    return this.#ends.at(-1) ?? 0;
  }

  body(): JsonBytes {
    this.#body ??= jsonBytes([...this.#pages, CLOSE], this.#length + 1);
    return this.#body;
  }

  after(id: number): JsonBytes {
    const first = this.#indexAfter(id);
    if (first === 0) return this.body();
    if (first === this.#count) return jsonBytes([EMPTY], EMPTY.byteLength);
    const start = this.#starts[first] ?? 0;
    const parts = [Uint8Array.of(OPEN), ...this.#views(start, this.#length), CLOSE];
    return jsonBytes(parts, this.#length - start + 2);
  }

  *tasksAfter(id: number): Iterable<EncodedTask> {
    for (let index = this.#indexAfter(id); index < this.#count; index++) {
      const start = this.#starts[index] ?? 0;
      const end = index + 1 < this.#count ? (this.#starts[index + 1] ?? 0) - 1 : this.#length;
      const page = this.#pageAt(start);
      const pageStart = page === 0 ? 0 : (this.#ends[page - 1] ?? 0);
      const json = (this.#pages[page] ?? EMPTY).subarray(start - pageStart, end - pageStart);
      yield { id: readId(json, 0), json };
    }
  }

  bytesAfter(id: number): number {
    const first = this.#indexAfter(id);
    return first === this.#count ? 0 : this.#length - (this.#starts[first] ?? 0);
  }

  /** The index of the first task whose id is greater than `id`, or the count when there is none. */
  #indexAfter(id: number): number {
    if (id < this.#firstId || this.#count === 0) return 0;
    if (id >= this.lastId) return this.#count;
    if (this.#contiguous) return Math.floor(id) - this.#firstId + 1;
    let low = 0;
    let high = this.#count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#idAt(middle) > id) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  #idAt(index: number): number {
    const start = this.#starts[index] ?? 0;
    const page = this.#pageAt(start);
    const pageStart = page === 0 ? 0 : (this.#ends[page - 1] ?? 0);
    return readId(this.#pages[page] ?? EMPTY, start - pageStart);
  }

  /** The page that holds the byte at `offset`. */
  #pageAt(offset: number): number {
    let low = 0;
    let high = this.#ends.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#ends[middle] ?? 0) > offset) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** Views of the bytes from `start` to `end`, one per page they cross. */
  #views(start: number, end: number): Uint8Array<ArrayBuffer>[] {
    const views: Uint8Array<ArrayBuffer>[] = [];
    for (let page = this.#pageAt(start); page < this.#pages.length; page++) {
      const pageStart = page === 0 ? 0 : (this.#ends[page - 1] ?? 0);
      const bytes = this.#pages[page] ?? EMPTY;
      views.push(bytes.subarray(Math.max(start - pageStart, 0), Math.min(end - pageStart, bytes.byteLength)));
      if ((this.#ends[page] ?? 0) >= end) break;
    }
    return views;
  }
}

/** The id of the task whose JSON starts at `offset` of `bytes`: the digits after `{"id":`. */
function readId(bytes: Uint8Array, offset: number): number {
  let id = 0;
  for (let at = offset + ID_PREFIX_BYTES; at < bytes.byteLength; at++) {
    const digit = (bytes[at] ?? 0) - 0x30;
    if (digit < 0 || digit > 9) break;
    id = id * 10 + digit;
  }
  return id;
}

/** JSON from `parts`: one copied array when short, with its text when shorter still; else the parts as they are. */
function jsonBytes(parts: readonly Uint8Array<ArrayBuffer>[], byteLength: number): JsonBytes {
  if (byteLength > CONTIGUOUS_BYTES) return { parts, byteLength };
  const bytes = new Uint8Array(byteLength);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  if (byteLength > TEXT_BYTES) return { parts: [bytes], byteLength };
  let text: string | undefined;
  return {
    parts: [bytes],
    byteLength,
    get text() {
      text ??= decoder.decode(bytes);
      return text;
    },
  };
}
