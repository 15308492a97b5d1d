// MAX_SUBSCRIBERS: how many readers may follow the list at once in this process or isolate.

/** The slots for subscribers of one process or isolate. */
export class Subscribers {
  readonly #max: number;
  #count = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** Subscribers following the list now. */
  get count(): number {
    return this.#count;
  }

  /** Whether every slot is taken: a newcomer would be refused now. */
  get full(): boolean {
    return this.#count >= this.#max;
  }

  /** Takes a slot and returns the function that gives it back (once), or undefined when all are taken. */
  join(): (() => void) | undefined {
    if (this.#count >= this.#max) return undefined;
    this.#count += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#count -= 1;
    };
  }
}
