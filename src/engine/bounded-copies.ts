// The copies of lists a process or isolate keeps, bounded in bytes: the least recently used copy is
// dropped first, so that reading many lists one after another never holds them all.

/** A copy of one list, as the cache holds it. */
export interface HeldCopy {
  /** Bytes the copy holds now, about. */
  readonly bytes: number;
  /** Whether a reader waits on the copy: it stays in the cache, with its bytes dropped. */
  readonly busy: boolean;
  /** Lets go of the copy's bytes: its next read starts again from nothing. */
  drop(): void;
}

/** What a copy costs beside its bytes: its objects, and a bound on how many empty copies are kept. */
export const COPY_OVERHEAD_BYTES = 1024;

/**
 * The copies of lists by name, in order of use, holding at most `maxBytes` between them (but for
 * the copy last used, which is kept even alone past the bound). Each copy's size is counted once
 * it is read ({@link sized}); going past the bound drops the least recently used copies' bytes,
 * and forgets those no reader waits on.
 */
export class BoundedCopies<T extends HeldCopy> {
  readonly #maxBytes: number;
  /** Insertion order is order of use: a copy used is deleted and set again. */
  readonly #copies = new Map<string, { readonly copy: T; bytes: number }>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes the copies hold between them, as last counted. */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many copies are kept. */
  get size(): number {
    return this.#copies.size;
  }

  /** The copy of `name`, made by `make` when there is none, counted as the most recently used. */
  use(name: string, make: () => T): T {
    const found = this.#copies.get(name);
    if (found !== undefined) {
      this.#copies.delete(name);
      this.#copies.set(name, found);
      return found.copy;
    }
    const copy = make();
    this.#copies.set(name, { copy, bytes: COPY_OVERHEAD_BYTES });
    this.#bytes += COPY_OVERHEAD_BYTES;
    this.#trim(name);
    return copy;
  }

  /** The copy of `name` if it is kept, without counting it as used. */
  peek(name: string): T | undefined {
    return this.#copies.get(name)?.copy;
  }

  /** Every copy kept. */
  values(): Iterable<T> {
    return Array.from(this.#copies.values(), (entry) => entry.copy);
  }

  /** Counts `copy`'s bytes again after it changed, and drops others past the bound. A copy no longer kept is ignored. */
  sized(name: string, copy: T): void {
    const entry = this.#copies.get(name);
    if (entry?.copy !== copy) return;
    const bytes = copy.bytes + COPY_OVERHEAD_BYTES;
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    this.#trim(name);
  }

  /** Drops the least recently used copies, never `kept`, until the copies are within the bound. */
  #trim(kept: string): void {
    for (const [name, entry] of this.#copies) {
      if (this.#bytes <= this.#maxBytes) return;
      if (name === kept) continue;
      entry.copy.drop();
      this.#bytes -= entry.bytes;
      entry.bytes = 0;
      if (entry.copy.busy) {
        // Still followed: kept for its readers, and counted again once it is read.
        entry.bytes = COPY_OVERHEAD_BYTES;
        this.#bytes += COPY_OVERHEAD_BYTES;
      } else {
        this.#copies.delete(name);
      }
    }
  }
}
