// A version of the list held in memory: views of its chunks, its log and its journal as they were
// at one change, each read answered from them without copying the list.
import { entryAfter, type LogView } from "./change-log.ts";
import type { ChunkState } from "./chunk-edits.ts";
import { indexAfter, taskAt, withoutComma } from "./chunk-view.ts";
import { backlogBatches } from "./event-batches.ts";
import type { ListUsage } from "./limits.ts";
import { type PageQuery, packed, pageParts } from "./list-page.ts";
import {
  type EncodedTask,
  type EventFormat,
  type JsonBytes,
  type ListEvent,
  type ListEventBatches,
  type ListEvents,
  type ListPage,
  type ListVersion,
  type TaskRead,
  taskVersion,
} from "./list-version.ts";
import { type JournalView, journalAfter, journalBytesAfter } from "./recent-changes.ts";
import { SHARED_LIST_BYTES, SharedBacklogs } from "./shared-backlog.ts";
import { deletedTaskJson } from "./task.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const OPEN = Uint8Array.of(0x5b); // [
const CLOSE = Uint8Array.of(0x5d); // ]
const EMPTY = Uint8Array.of(0x5b, 0x5d);
/**
 * JSON up to this size is sent as one array, copied once, which every runtime sends fastest
 * (a stream of a few parts costs workerd several times a fixed body). Larger JSON is sent as
 * views of the list's chunks, never copied: however many readers hold however many versions, the
 * list is in memory once. The bound keeps what slow readers of old versions can pin small.
 */
const CONTIGUOUS_BYTES = 256 * 1024;
/**
 * JSON up to this size is also offered as text, for runtimes that send text with the head in one
 * write; larger JSON goes as bytes, where one more write is nothing beside the copy of a text.
 */
const TEXT_BYTES = 16 * 1024;

/** What a version is made of. */
export interface VersionParts {
  readonly instance: string;
  readonly chunks: readonly ChunkState[];
  readonly log: LogView;
  readonly journal: JournalView;
  readonly change: number;
  readonly highestId: number;
  readonly usage: ListUsage;
  readonly lastId: number;
}

/** A version of an EncodedList: views of its chunks and its log as they were at one change. */
export class Snapshot implements ListVersion {
  readonly version: string;
  readonly usage: ListUsage;
  readonly lastId: number;
  readonly change: number;
  readonly #instance: string;
  readonly #chunks: readonly ChunkState[];
  readonly #log: LogView;
  readonly #journal: JournalView;
  readonly highestId: number;
  /** The bytes of the list's JSON before each chunk, from the opening bracket's end; counted when first needed. */
  #before: number[] | undefined;
  readonly #bytes: number;
  #body: JsonBytes | undefined;
  #shared: SharedBacklogs | undefined;

  constructor({ instance, chunks, log, journal, change, highestId, usage, lastId }: VersionParts) {
    this.#instance = instance;
    this.#chunks = chunks;
    this.#log = log;
    this.#journal = journal;
    this.highestId = highestId;
    this.change = change;
    this.usage = usage;
    this.lastId = lastId;
    // The list's JSON less its brackets.
    this.#bytes = usage.bytes - 2;
    this.version = `${instance}-${change}`;
  }

  body(): JsonBytes {
    this.#body ??= jsonBytes(this.#partsFrom(0, 0), this.#bytes + 2);
    return this.#body;
  }

  after(id: number): JsonBytes {
    const [chunk, index] = this.#find(id);
    if (chunk === 0 && index === 0) return this.body();
    if (chunk === this.#chunks.length) return jsonBytes([EMPTY], EMPTY.byteLength);
    return jsonBytes(this.#partsFrom(chunk, index), this.bytesAfter(id) + 2);
  }

  page(query: PageQuery): ListPage {
    if (query.completed === undefined && query.limit === undefined)
      return { body: this.after(query.after), next: undefined };
    const { parts, byteLength, next } = pageParts(this.#chunks, this.#find(query.after), query);
    // A large page of scattered tasks would be a part per run: short runs are copied into blocks, long ones stay views.
    return { body: jsonBytes(byteLength > CONTIGUOUS_BYTES ? packed(parts) : parts, byteLength), next };
  }

  *tasksAfter(id: number): Iterable<EncodedTask> {
    let [chunk, index] = this.#find(id);
    for (; chunk < this.#chunks.length; chunk++, index = 0) {
      const view = (this.#chunks[chunk] as ChunkState).view();
      for (; index < view.count; index++) {
        const { id, json } = taskAt(view, index);
        yield { id, json };
      }
    }
  }

  bytesAfter(id: number): number {
    const [chunk, index] = this.#find(id);
    const view = this.#chunks[chunk]?.view();
    if (view === undefined) return 0;
    return this.#bytes + 1 - (this.#bytesBefore()[chunk] ?? 0) - ((view.starts[index] ?? 1) - 1) - 1;
  }

  task(id: number): TaskRead {
    const [chunk, index] = this.#find(id - 1);
    const state = this.#chunks[chunk];
    if (state !== undefined && state.ids[index] === id) {
      const task = state.task(index);
      return { outcome: "found", id, json: task.json, version: taskVersion(this.#instance, id, task.changed) };
    }
    return Number.isInteger(id) && id >= 1 && id <= this.highestId ? { outcome: "gone" } : { outcome: "not-found" };
  }

  eventsAfter(change: number): ListEvents {
    const reset = this.#reset(change);
    return { reset, events: this.#events(reset ? 0 : change) };
  }

  eventBatches(change: number, through: number, format: EventFormat, batchBytes: number): ListEventBatches {
    const reset = this.#reset(change);
    const after = reset ? 0 : change;
    const source = { chunks: this.#chunks, log: this.#log };
    const build = () => backlogBatches(source, after, through, format, batchBytes);
    // Subscribers that hold nothing get the same bytes of the same version: built once for all of them.
    if (after !== 0 || through !== this.change || this.usage.bytes > SHARED_LIST_BYTES) {
      return { reset, batches: build() };
    }
    this.#shared ??= new SharedBacklogs();
    return { reset, batches: this.#shared.read(format, batchBytes, build) };
  }

  /** Whether a cursor at `change` cannot be brought up to date: older than the deletions remembered, or newer than the list. */
  #reset(change: number): boolean {
    return change > this.change || (change > 0 && change < this.#log.forgotten);
  }

  changesAfter(change: number): readonly ListEvent[] | undefined {
    return change > this.change ? undefined : journalAfter(this.#journal, change);
  }

  bytesChangedAfter(change: number): number {
    return journalBytesAfter(this.#journal, change);
  }

  get changedBytes(): number {
    return this.#journal.total;
  }

  get forgotten(): number {
    return this.#log.forgotten;
  }

  *#events(after: number): Iterable<ListEvent> {
    const log = this.#log;
    for (let at = entryAfter(log, after); at < log.length; at++) {
      const change = log.changes[at] ?? 0;
      const id = log.ids[at] ?? 0;
      if (log.deleted[at] === 1) {
        // A subscriber that holds nothing has nothing to delete.
        if (after > 0 && change > log.forgotten) {
          const json = encoder.encode(deletedTaskJson(id)) as Uint8Array<ArrayBuffer>;
          yield { change, event: "delete", id, created: 0, json };
        }
        continue;
      }
      const [chunk, index] = this.#find(id - 1);
      const task = this.#chunks[chunk]?.task(index);
      if (task === undefined || task.id !== id || task.changed !== change) continue;
      yield { change, event: task.created > after ? "task" : "update", id, created: task.created, json: task.json };
    }
  }

  #bytesBefore(): number[] {
    if (this.#before === undefined) {
      let bytes = 0;
      this.#before = this.#chunks.map((chunk) => {
        const before = bytes;
        bytes += chunk.byteLength;
        return before;
      });
    }
    return this.#before;
  }

  /** The chunk and index of the first task whose id is greater than `id`, or the chunk count. */
  #find(id: number): [number, number] {
    let low = 0;
    let high = this.#chunks.length;
    // The last chunk whose first id is at most `id`+1 holds the task after `id`, or the next chunk does.
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#chunks[middle]?.ids[0] ?? 0) > id) high = middle;
      else low = middle + 1;
    }
    const chunk = Math.max(low - 1, 0);
    const view = this.#chunks[chunk];
    if (view === undefined) return [this.#chunks.length, 0];
    const index = indexAfter(view, id);
    return index < view.count ? [chunk, index] : [chunk + 1, 0];
  }

  /** The list's JSON from the `index`th task of chunk `chunk` on, brackets included. */
  #partsFrom(chunk: number, index: number): Uint8Array<ArrayBuffer>[] {
    const parts = [OPEN];
    for (let at = chunk; at < this.#chunks.length; at++) {
      const view = (this.#chunks[at] as ChunkState).view();
      const bytes = view.bytes;
      if (at === chunk) {
        const start = view.starts[index] ?? 1;
        parts.push(index === 0 ? withoutComma(bytes) : bytes.subarray(start));
      } else {
        parts.push(bytes);
      }
    }
    parts.push(CLOSE);
    return parts;
  }
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
