// One version of the list, as every reader sees it: the JSON of the whole list or of the tasks
// after an id, one task with its own version, and the changes after a change number.
import type { ListUsage } from "./limits.ts";
import type { PageQuery } from "./list-page.ts";

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

/** A page of the list: its JSON array, and the id of its last task when more tasks past it fit the query. */
export interface ListPage {
  readonly body: JsonBytes;
  readonly next: number | undefined;
}

/** One task read from a version: its JSON and its own version (a strong ETag's value), or why there is none. */
export type TaskRead =
  | { readonly outcome: "found"; readonly id: number; readonly json: Uint8Array<ArrayBuffer>; readonly version: string }
  /** Its id was given, and the task deleted since. */
  | { readonly outcome: "gone" }
  /** Its id was never given. */
  | { readonly outcome: "not-found" };

/** What a subscriber is sent for one task: its creation, its edit or its deletion, with the change number. */
export interface ListEvent {
  readonly change: number;
  readonly event: "task" | "update" | "delete";
  readonly id: number;
  /** The change that created the task; 0 for a deletion. */
  readonly created: number;
  /** The task's JSON, or `{"id":N}` for a deletion. */
  readonly json: Uint8Array<ArrayBuffer>;
}

/** What brings a cursor up to date: `reset` when it cannot be, and then the whole list follows. */
export interface ListEvents {
  readonly reset: boolean;
  readonly events: Iterable<ListEvent>;
}

/** Each event written as `head`, its change number, its kind's bytes, its JSON, then `tail`. */
export interface EventFormat {
  readonly head: Uint8Array;
  readonly kinds: Readonly<Record<ListEvent["event"], Uint8Array>>;
  readonly tail: Uint8Array;
  /** Whether each event is a WebSocket text frame of its own, its header before `head` (RFC 6455, unmasked, as a server sends). */
  readonly framed: boolean;
}

/** Events written one after another, in change order. */
export interface EventBatch {
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** Where each event's bytes start in `bytes`, and after the last, where they end: one more than there are events. */
  readonly bounds: Uint32Array;
  /** The change number of the last event. */
  readonly last: number;
}

/** What brings a cursor up to date, written as bytes: `reset` when it cannot be, and then the whole list follows. */
export interface ListEventBatches {
  readonly reset: boolean;
  readonly batches: Iterable<EventBatch>;
}

/** The list as it was after one change. Later changes never change what it holds. */
export interface ListVersion {
  /** Tells this version apart from every other version of every list; safe between an ETag's quotes. */
  readonly version: string;
  readonly usage: ListUsage;
  /** The id of the last task, or 0 when the list is empty. */
  readonly lastId: number;
  /** The number of the list's last change. */
  readonly change: number;
  /** The highest id the list ever gave. */
  readonly highestId: number;
  /** The change number of the last deletion the list forgot, or 0: a cursor before it is reset. */
  readonly forgotten: number;
  /** The whole list as a JSON array; the same bytes on every call. */
  body(): JsonBytes;
  /** The tasks after id `id`, in id order, as a JSON array: `[]` when there are none. */
  after(id: number): JsonBytes;
  /** The tasks after `query.after` that fit its filter, at most its limit, in id order, as a JSON array. */
  page(query: PageQuery): ListPage;
  /** The tasks after id `id`, in id order, each as its own JSON. */
  tasksAfter(id: number): Iterable<EncodedTask>;
  /** Bytes of the JSON of the tasks after id `id`, the commas between them included. */
  bytesAfter(id: number): number;
  /** The task whose id is `id`. */
  task(id: number): TaskRead;
  /**
   * One event per task whose last change is after change `change`, in change order: a reset and
   * the whole list when `change` is older than the deletions remembered or newer than the list.
   */
  eventsAfter(change: number): ListEvents;
  /**
   * The same events, those up to change `through` only, written in `format` in batches of about
   * `batchBytes`: a backlog sent without an object per task.
   */
  eventBatches(change: number, through: number, format: EventFormat, batchBytes: number): ListEventBatches;
  /**
   * Every change after change `change`, each with the task as that change left it, in change
   * order; undefined when the list no longer keeps changes that far back.
   */
  changesAfter(change: number): readonly ListEvent[] | undefined;
  /** Bytes carried by every change after `change`: Infinity when the list no longer keeps changes that far back. */
  bytesChangedAfter(change: number): number;
  /**
   * Bytes carried by every change this copy of the list took since it was made: it only grows, so
   * a reader can wait for it to pass a mark.
   */
  readonly changedBytes: number;
}

/** A task's own version: its list's instance, its id and its last change, so it never names another task or version. */
export function taskVersion(instance: string, id: number, changed: number): string {
  return `${instance}-${id}-${changed}`;
}
