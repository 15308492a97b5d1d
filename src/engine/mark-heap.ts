// Waiters ordered by the mark each waits for a level to pass: taking those below a level costs a
// logarithm per waiter taken, whatever the number of others.

/** A waiter in the heap: its mark, what wakes it, and where it is, while it is there. */
export interface MarkEntry {
  readonly mark: number;
  readonly wake: () => void;
  at: number;
}

/** A binary heap of waiters, lowest mark first. */
export class MarkHeap {
  readonly #entries: MarkEntry[] = [];

  get size(): number {
    return this.#entries.length;
  }

  /** Adds a waiter for `mark`; the entry removes it again. */
  add(mark: number, wake: () => void): MarkEntry {
    const entry: MarkEntry = { mark, wake, at: this.#entries.length };
    this.#entries.push(entry);
    this.#up(entry.at);
    return entry;
  }

  /** Removes a waiter that no longer waits; nothing if it was taken already. */
  remove(entry: MarkEntry): void {
    const at = entry.at;
    if (at < 0 || this.#entries[at] !== entry) return;
    const last = this.#entries.pop() as MarkEntry;
    entry.at = -1;
    if (last === entry) return;
    this.#entries[at] = last;
    last.at = at;
    this.#down(at);
    this.#up(at);
  }

  /** Takes out every waiter whose mark is below `level`, and returns what wakes each. */
  takeBelow(level: number): (() => void)[] {
    const taken: (() => void)[] = [];
    for (let first = this.#entries[0]; first !== undefined && first.mark < level; first = this.#entries[0]) {
      this.remove(first);
      taken.push(first.wake);
    }
    return taken;
  }

  /** Takes out every waiter, and returns what wakes each. */
  takeAll(): (() => void)[] {
    const taken = this.#entries.map((entry) => {
      entry.at = -1;
      return entry.wake;
    });
    this.#entries.length = 0;
    return taken;
  }

  #up(at: number): void {
    const entries = this.#entries;
    for (let child = at; child > 0; ) {
      const parent = (child - 1) >> 1;
      if ((entries[parent] as MarkEntry).mark <= (entries[child] as MarkEntry).mark) return;
      this.#swap(parent, child);
      child = parent;
    }
  }

  #down(at: number): void {
    const entries = this.#entries;
    for (let parent = at; ; ) {
      const left = parent * 2 + 1;
      const right = left + 1;
      let least = parent;
      if (left < entries.length && (entries[left] as MarkEntry).mark < (entries[least] as MarkEntry).mark) least = left;
      if (right < entries.length && (entries[right] as MarkEntry).mark < (entries[least] as MarkEntry).mark)
        least = right;
      if (least === parent) return;
      this.#swap(parent, least);
      parent = least;
    }
  }

  #swap(a: number, b: number): void {
    const entries = this.#entries;
    const first = entries[a] as MarkEntry;
    const second = entries[b] as MarkEntry;
    entries[a] = second;
    entries[b] = first;
    first.at = b;
    second.at = a;
  }
}
