import { type ListBody, type ListUsage, type Task, taskJson } from "./store.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const OPEN = Uint8Array.of(0x5b); // [
const COMMA = Uint8Array.of(0x2c); // ,
const CLOSE = Uint8Array.of(0x5d); // ]

/** The first page is small so that a short list takes little memory; each next one doubles, up to {@link PAGE_BYTES}. */
const FIRST_PAGE_BYTES = 4 * 1024;
const PAGE_BYTES = 1024 * 1024;
/**
 * A list up to this size is answered as one array, copied once per version, which every runtime
 * sends fastest (a stream of a few parts costs workerd several times a fixed body). A larger one is
 * answered as views of its pages, never copied: however many readers hold however many versions,
 * the list is in memory once. The bound keeps what slow readers of old versions can pin small.
 */
const CONTIGUOUS_BYTES = 256 * 1024;
/**
 * A list up to this size is also offered as text, for runtimes that send text with the head in one
 * write; a larger one goes as bytes, where one more write is nothing beside the copy of a text.
 */
const TEXT_BYTES = 16 * 1024;

/** A task's JSON as UTF-8, with its keys in the order id, title, completed. */
export function encodeTask(task: Task): Uint8Array<ArrayBuffer> {
  return encoder.encode(taskJson(task)) as Uint8Array<ArrayBuffer>;
}

/**
 * The list kept as the bytes of its JSON array, in pages that are only ever appended to. Each task
 * is encoded once, when it is added, so a read costs the same however long the list is, and an
 * append costs the same however long it is.
 */
export class EncodedList {
  /** Full pages; a page never moves, and bytes once written are never written again. */
  readonly #full: Uint8Array<ArrayBuffer>[] = [];
  #page = new Uint8Array(FIRST_PAGE_BYTES);
  #pageLength = 0;
  /** Bytes written, the opening "[" included; the closing "]" is added to each body. */
  #length = 0;
  #count = 0;
  #lastId = 0;
  #body: ListBody | undefined;

  constructor(tasks: Iterable<Task> = []) {
    this.#write(OPEN);
    for (const task of tasks) this.push(task);
  }

  get count(): number {
    return this.#count;
  }

  /** The id of the last task, or 0 when the list is empty. */
  get lastId(): number {
    return this.#lastId;
  }

  /** The tasks and the bytes of the list's JSON, brackets included. */
  get usage(): ListUsage {
    return { tasks: this.#count, bytes: this.#length + 1 };
  }

  /** Bytes a task whose JSON is `json` adds to the list: that JSON and, after the first task, a comma. */
  addedBytes(json: Uint8Array): number {
    return json.byteLength + (this.#count > 0 ? 1 : 0);
  }

  /** Adds a task at the end. */
  push(task: Task): void {
    this.pushEncoded(encodeTask(task), 1, task.id);
  }

  /** Adds `tasks` tasks given as their JSON joined by commas; `lastId` is the last one's id. */
  pushEncoded(json: Uint8Array, tasks: number, lastId: number): void {
    if (tasks === 0) return;
    if (this.#count > 0) this.#write(COMMA);
    this.#write(json);
    this.#count += tasks;
    this.#lastId = lastId;
    this.#body = undefined;
  }

  /** The whole list as JSON. The same body is returned until the list changes. */
  body(): ListBody {
    this.#body ??= this.#makeBody();
    return this.#body;
  }

  #makeBody(): ListBody {
    const byteLength = this.#length + 1;
    const written = [...this.#full, this.#page.subarray(0, this.#pageLength)];
    if (byteLength > CONTIGUOUS_BYTES) return { parts: [...written, CLOSE], byteLength };
    const bytes = new Uint8Array(byteLength);
    let offset = 0;
    for (const part of written) {
      bytes.set(part, offset);
      offset += part.byteLength;
    }
    bytes.set(CLOSE, offset);
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

  #write(bytes: Uint8Array): void {
    if (bytes.byteLength <= this.#page.byteLength - this.#pageLength) {
      this.#page.set(bytes, this.#pageLength);
      this.#pageLength += bytes.byteLength;
      this.#length += bytes.byteLength;
      return;
    }
    for (let offset = 0; offset < bytes.byteLength; ) {
      if (this.#pageLength === this.#page.byteLength) {
        this.#full.push(this.#page);
        this.#page = new Uint8Array(Math.min(this.#page.byteLength * 2, PAGE_BYTES));
        this.#pageLength = 0;
      }
      const n = Math.min(bytes.byteLength - offset, this.#page.byteLength - this.#pageLength);
      this.#page.set(bytes.subarray(offset, offset + n), this.#pageLength);
      this.#pageLength += n;
      offset += n;
    }
    this.#length += bytes.byteLength;
  }
}
