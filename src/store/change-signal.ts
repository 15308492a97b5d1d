// How a reader waits for the list to change: woken by the append in this process, or, where one
// request may not wake another (Workers), by looking again on a timer of its own.

import type { EncodedList, ListVersion } from "../list/encoded-list.ts";

/** Whether `list` changed after change `change`, and, with `worth`, whether `worth` holds of it now. */
export function changedWorth(list: EncodedList, change: number, worth?: (list: ListVersion) => boolean): boolean {
  return list.change > change && (worth === undefined || worth(list.read()));
}

/** Readers of one list waiting for it to change. */
export class ChangeSignal {
  readonly #waiters = new Set<() => void>();
  readonly #pollMs: number | undefined;

  /**
   * With `pollMs`, each reader looks again every `pollMs` instead of being woken: on Workers a
   * promise made by one request and resolved by another is dropped.
   */
  constructor(pollMs?: number) {
    this.#pollMs = pollMs;
  }

  /** Resolves once `changed()` holds (at once if it does), or when `signal` aborts. */
  wait(changed: () => boolean, signal: AbortSignal): Promise<void> {
    if (changed() || signal.aborted) return Promise.resolve();
    const pollMs = this.#pollMs;
    return new Promise((done) => {
      const finish = () => {
        this.#waiters.delete(wake);
        if (timer !== undefined) clearInterval(timer);
        signal.removeEventListener("abort", finish);
        done();
      };
      const wake = () => {
        if (changed()) finish();
      };
      const timer = pollMs === undefined ? undefined : setInterval(wake, pollMs);
      if (pollMs === undefined) this.#waiters.add(wake);
      signal.addEventListener("abort", finish, { once: true });
    });
  }

  /** Wakes the readers whose list has changed. */
  notify(): void {
    // Most appends have no reader waiting: waking none then costs no copy of the set.
    if (this.#waiters.size === 0) return;
    for (const wake of [...this.#waiters]) wake();
  }
}
