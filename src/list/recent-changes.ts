// The list's latest changes, every one of them with the bytes it carried: what a subscriber that is
// following the list is sent, so that it gets each change once, even several of one task at once.

/** What a change did to its task. */
export type ChangeKind = "task" | "update" | "delete";

/**
 * Bytes of changes the journal keeps at least: twice what may wait for a subscriber before it is
 * cut off, so any subscriber still connected finds its next change here.
 */
export const JOURNAL_BYTES = 2 * 1024 * 1024;
/** Changes the journal keeps at most, however small: what bounds its memory when changes are tiny. */
export const JOURNAL_CHANGES = 20_000;

/** One change as the journal holds it. */
export interface JournalEntry {
  readonly change: number;
  readonly event: ChangeKind;
  readonly id: number;
  /** The change that created the task; 0 for a deletion. */
  readonly created: number;
  /** The task's JSON after the change, or `{"id":N}` for a deletion. */
  readonly json: Uint8Array<ArrayBuffer>;
}

/** The journal as it was at one change; later changes only write past `end`. */
export interface JournalView {
  /** The change before the first kept: cursors from here on are covered. */
  readonly base: number;
  readonly entries: readonly JournalEntry[];
  /** Bytes carried by all changes up to and including each entry, since the journal began. */
  readonly totals: Float64Array;
  readonly start: number;
  readonly end: number;
  /** Bytes carried by every change journaled since the journal began, forgotten ones included: it only grows. */
  readonly total: number;
}

/** Every change of a list after `base`, up to the last {@link JOURNAL_BYTES} or {@link JOURNAL_CHANGES}. */
export class ChangeJournal {
  #entries: JournalEntry[] = [];
  #totals = new Float64Array(16);
  #start = 0;
  #base: number;
  #total = 0;
  #view: JournalView | undefined;

  /** An empty journal of a list whose last change is `base`. */
  constructor(base: number) {
    this.#base = base;
  }

  /** Records change `change` of task `id`, created by change `created`, which carried `json`; the oldest changes go past the bounds. */
  record(change: number, event: ChangeKind, id: number, created: number, json: Uint8Array<ArrayBuffer>): void {
    const end = this.#entries.length;
    if (end === this.#totals.length) this.#compact();
    this.#total += json.byteLength;
    this.#entries.push({ change, event, id, created, json });
    this.#totals[this.#entries.length - 1] = this.#total;
    while (this.#kept() > JOURNAL_CHANGES || this.#keptBytesWithoutFirst() >= JOURNAL_BYTES) {
      this.#base = this.#entries[this.#start]?.change ?? this.#base;
      this.#start += 1;
    }
    this.#view = undefined;
  }

  /**
   * Forgets every change kept: the list took changes it was not told one by one (another copy's
   * last change of each task), so only cursors from `base` on are covered again.
   */
  restart(base: number): void {
    this.#entries = [];
    this.#totals = new Float64Array(16);
    this.#start = 0;
    this.#base = base;
    this.#view = undefined;
  }

  /** Bytes carried by every change journaled since the journal began: it only grows. */
  get total(): number {
    return this.#total;
  }

  /** The change journaled last, while the journal keeps it. */
  get last(): JournalEntry | undefined {
    return this.#kept() > 0 ? this.#entries[this.#entries.length - 1] : undefined;
  }

  /** The journal as it is now; the same object until it changes. */
  view(): JournalView {
    this.#view ??= {
      base: this.#base,
      entries: this.#entries,
      totals: this.#totals,
      start: this.#start,
      end: this.#entries.length,
      total: this.#total,
    };
    return this.#view;
  }

  #kept(): number {
    return this.#entries.length - this.#start;
  }

  #keptBytesWithoutFirst(): number {
    return this.#total - (this.#totals[this.#start] ?? 0);
  }

  /** Moves the kept entries into new arrays: views handed out keep the old ones. */
  #compact(): void {
    const kept = this.#entries.slice(this.#start);
    const totals = new Float64Array(Math.max(64, kept.length * 2));
    totals.set(this.#totals.subarray(this.#start, this.#entries.length));
    this.#entries = kept;
    this.#totals = totals;
    this.#start = 0;
  }
}

/** The index of the first entry of `view` whose change is after `change`. */
function entryAfter(view: JournalView, change: number): number {
  let low = view.start;
  let high = view.end;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((view.entries[middle]?.change ?? 0) > change) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Every change after `change` in `view`, in change order, or undefined when the journal no longer reaches back to it. */
export function journalAfter(view: JournalView, change: number): JournalEntry[] | undefined {
  if (change < view.base) return undefined;
  return view.entries.slice(entryAfter(view, change), view.end);
}

/** Bytes carried by the changes after `change` in `view`: Infinity when the journal no longer reaches back to it. */
export function journalBytesAfter(view: JournalView, change: number): number {
  if (change < view.base) return Number.POSITIVE_INFINITY;
  if (view.end === view.start) return 0;
  const at = entryAfter(view, change);
  const before =
    at === view.start ? (view.totals[at] ?? 0) - (view.entries[at]?.json.byteLength ?? 0) : (view.totals[at - 1] ?? 0);
  return (view.totals[view.end - 1] ?? 0) - before;
}
