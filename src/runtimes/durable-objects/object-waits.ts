// Calls that wait in a Durable Object for something to happen there, each under the key its caller
// gave, until it happens, their bound passes, or their caller goes.
import { type MarkEntry, MarkHeap } from "../../engine/mark-heap.ts";

/** The callers waiting in an object, by key: each is answered true once woken, else false. */
export class ObjectWaits {
  /** Every waiting caller, by key: how to answer it. */
  readonly #waiting = new Map<string, (woken: boolean) => void>();
  /** Those waiting for any change. */
  readonly #anyChange = new Set<(woken: boolean) => void>();
  /** Those waiting for a level to pass their mark, lowest first: a change wakes only those it takes past theirs. */
  readonly #marks = new MarkHeap();

  /**
   * Resolves true once {@link wake} is called with a level past `mark` (any level, without one), or
   * false after `waitMs`, once {@link stop} is called with `key`, or once another wait takes the same key.
   */
  wait(key: string, waitMs: number, mark?: number): Promise<boolean> {
    return new Promise((done) => {
      let entry: MarkEntry | undefined;
      const finish = (woken: boolean) => {
        this.#waiting.delete(key);
        this.#anyChange.delete(finish);
        if (entry !== undefined) this.#marks.remove(entry);
        clearTimeout(timer);
        done(woken);
      };
      const timer = setTimeout(() => finish(false), waitMs);
      this.#waiting.get(key)?.(false);
      this.#waiting.set(key, finish);
      if (mark === undefined) this.#anyChange.add(finish);
      else entry = this.#marks.add(mark, () => finish(true));
    });
  }

  /**
   * Wakes the callers waiting for any change, and those whose mark `level` passed; every one when
   * no level is given (the list was deleted).
   */
  wake(level?: number): void {
    const marked = level === undefined ? this.#marks.takeAll() : this.#marks.takeBelow(level);
    for (const finish of [...this.#anyChange]) finish(true);
    for (const wake of marked) wake();
  }

  /** Ends the wait made with `key`: its caller has gone. */
  stop(key: string): void {
    this.#waiting.get(key)?.(false);
  }

  /** How many callers wait. */
  get size(): number {
    return this.#waiting.size;
  }
}
