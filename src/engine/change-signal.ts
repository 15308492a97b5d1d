// How a reader waits for the list to change: woken by the append in this process, or, where one
// request may not wake another (Workers), by looking again on a timer of its own.
import { MarkHeap } from "./mark-heap.ts";

/** Readers of one list waiting for it to change. */
export class ChangeSignal {
  readonly #waiters = new Set<() => void>();
  /** Readers waiting for the level to pass a mark, lowest mark first: a change wakes only those it takes past theirs. */
  readonly #marks = new MarkHeap();
  readonly #pollMs: number | undefined;
  readonly #level: () => number;
  #lastLevel = 0;
  /** The list was deleted: every reader is woken, and one that waits again returns at once. */
  #ended = false;

  /**
   * With `pollMs`, each reader looks again every `pollMs` instead of being woken: on Workers a
   * promise made by one request and resolved by another is dropped. `level` is what {@link waitPast}
   * waits on: a number that only grows while the list is the same (the list's `changedBytes`).
   */
  constructor(level: () => number, pollMs?: number) {
    this.#level = level;
    this.#pollMs = pollMs;
  }

  /** Resolves once `changed()` holds (at once if it does), or when `signal` aborts. */
  wait(changed: () => boolean, signal: AbortSignal): Promise<void> {
    if (this.#ended || changed() || signal.aborted) return Promise.resolve();
    const pollMs = this.#pollMs;
    return new Promise((done) => {
      const finish = () => {
        this.#waiters.delete(wake);
        if (timer !== undefined) clearInterval(timer);
        signal.removeEventListener("abort", finish);
        done();
      };
      const wake = () => {
        if (this.#ended || changed()) finish();
      };
      const timer = pollMs === undefined ? undefined : setInterval(wake, pollMs);
      if (pollMs === undefined) this.#waiters.add(wake);
      signal.addEventListener("abort", finish, { once: true });
    });
  }

  /** Resolves once the level is past `mark` (at once if it is), or when `signal` aborts. */
  waitPast(mark: number, signal: AbortSignal): Promise<void> {
    if (this.#pollMs !== undefined) return this.wait(() => this.#level() > mark, signal);
    if (this.#ended || this.#level() > mark || signal.aborted) return Promise.resolve();
    return new Promise((done) => {
      const finish = () => {
        signal.removeEventListener("abort", leave);
        done();
      };
      const entry = this.#marks.add(mark, finish);
      const leave = () => {
        this.#marks.remove(entry);
        done();
      };
      signal.addEventListener("abort", leave, { once: true });
    });
  }

  /**
   * Wakes every reader for good: the list was deleted, and each reads it gone. Where readers look
   * again on a timer (Workers), each finds it at its next look.
   */
  end(): void {
    this.#ended = true;
    for (const wake of [...this.#waiters]) wake();
    for (const wake of this.#marks.takeAll()) wake();
  }

  /** Wakes the readers whose list has changed, and those whose mark the list's level has passed. */
  notify(): void {
    // Most appends have no reader waiting: waking none then costs no copy of the set.
    if (this.#waiters.size > 0) for (const wake of [...this.#waiters]) wake();
    if (this.#marks.size === 0) return;
    const level = this.#level();
    // A level that fell belongs to another copy of the list: every mark is looked at again.
    const woken = level < this.#lastLevel ? this.#marks.takeAll() : this.#marks.takeBelow(level);
    this.#lastLevel = level;
    for (const wake of woken) wake();
  }
}
