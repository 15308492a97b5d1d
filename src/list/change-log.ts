// Every task's last change and the deletions the list remembers, in change-number order: what a
// subscriber resuming from a change number is sent, without looking at the tasks it already has.

/** Deletions a list remembers, at least: a cursor older than the last one forgotten is reset. */
export const MAX_TOMBSTONES = 10_000;

/** The log as it was at one moment: entries in change order; later moments only write past `length`. */
export interface LogView {
  readonly changes: Float64Array;
  readonly ids: Float64Array;
  /** 1 for a deletion, 0 for a task's creation or edit. */
  readonly deleted: Uint8Array;
  readonly length: number;
  /** The change number of the last deletion forgotten, or 0. */
  readonly forgotten: number;
}

/** One entry: a task's change, or its deletion. */
export interface LogEntry {
  readonly change: number;
  readonly id: number;
  readonly deleted: boolean;
}

/**
 * The log of a list. An entry whose task changed again since is stale and skipped by readers; it is
 * dropped once stale entries outnumber the live ones, so the log stays about as long as the list.
 */
export class ChangeLog {
  #changes = new Float64Array(16);
  #ids = new Float64Array(16);
  #deleted = new Uint8Array(16);
  #length = 0;
  #stale = 0;
  /** Change numbers of the deletions remembered, oldest first, from `#first` on. */
  #tombstones: number[] = [];
  #first = 0;
  #forgotten = 0;
  #view: LogView | undefined;

  /** A log of `entries`, which must come in change order, with deletions forgotten up to `forgotten`. */
  constructor(entries: Iterable<LogEntry> = [], forgotten = 0) {
    this.#forgotten = forgotten;
    for (const entry of entries) this.#push(entry.change, entry.id, entry.deleted);
  }

  /** Records a change; `replaces` when the task had an entry already, which is now stale. */
  record(change: number, id: number, deleted: boolean, replaces: boolean): void {
    if (replaces) this.#stale += 1;
    this.#push(change, id, deleted);
    while (this.#tombstones.length - this.#first > MAX_TOMBSTONES) {
      this.#forgotten = this.#tombstones[this.#first] ?? this.#forgotten;
      this.#first += 1;
      this.#stale += 1;
    }
    if (this.#first > 4096 && this.#first * 2 > this.#tombstones.length) {
      this.#tombstones = this.#tombstones.slice(this.#first);
      this.#first = 0;
    }
  }

  /**
   * Drops stale entries once they outnumber the live ones; `live` says whether an entry is still a
   * task's last change. A new array: views handed out keep theirs.
   */
  compact(live: (change: number, id: number) => boolean): void {
    if (this.#stale < 1024 || this.#stale * 2 < this.#length) return;
    const old = this.view();
    this.#changes = new Float64Array(Math.max(64, (old.length - this.#stale) * 2));
    this.#ids = new Float64Array(this.#changes.length);
    this.#deleted = new Uint8Array(this.#changes.length);
    this.#length = 0;
    this.#stale = 0;
    this.#tombstones = [];
    this.#first = 0;
    for (let at = 0; at < old.length; at++) {
      const change = old.changes[at] ?? 0;
      const id = old.ids[at] ?? 0;
      const deleted = old.deleted[at] === 1;
      if (deleted ? change > old.forgotten : live(change, id)) this.#push(change, id, deleted);
    }
  }

  /** The change number of the last deletion forgotten once one more deletion is recorded. */
  forgottenAfterDeletion(): number {
    const remembered = this.#tombstones.length - this.#first;
    return remembered + 1 > MAX_TOMBSTONES ? (this.#tombstones[this.#first] ?? this.#forgotten) : this.#forgotten;
  }

  /** The log as it is now; the same object until it changes. */
  view(): LogView {
    this.#view ??= {
      changes: this.#changes,
      ids: this.#ids,
      deleted: this.#deleted,
      length: this.#length,
      forgotten: this.#forgotten,
    };
    return this.#view;
  }

  #push(change: number, id: number, deleted: boolean): void {
    if (this.#length === this.#changes.length) {
      const size = this.#length * 2;
      this.#changes = copied(new Float64Array(size), this.#changes);
      this.#ids = copied(new Float64Array(size), this.#ids);
      this.#deleted = copied(new Uint8Array(size), this.#deleted);
    }
    this.#changes[this.#length] = change;
    this.#ids[this.#length] = id;
    this.#deleted[this.#length] = deleted ? 1 : 0;
    this.#length += 1;
    if (deleted) this.#tombstones.push(change);
    this.#view = undefined;
  }
}

/** The index of the first entry of `log` whose change number is greater than `change`. */
export function entryAfter(log: LogView, change: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((log.changes[middle] ?? 0) > change) high = middle;
    else low = middle + 1;
  }
  return low;
}

function copied<T extends Float64Array | Uint8Array>(into: T, from: T): T {
  into.set(from);
  return into;
}
