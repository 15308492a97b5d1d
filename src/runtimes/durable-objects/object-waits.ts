// Calls that wait in a Durable Object on a ChangeSignal, as every store's readers wait, each under
// the key its caller gave: a call to the object may not wait past its bound, and its caller, in
// another Worker, leaves by key.

/** The callers waiting in an object, by key: each is answered true once what it waits for happens, else false. */
export class ObjectWaits {
  /** Every waiting caller, by key: how it leaves. */
  readonly #callers = new Map<string, AbortController>();

  /**
   * Resolves true once `waited` resolves on its own, or false after `waitMs`, once {@link stop} is
   * called with `key`, or once another wait takes the same key. `waited` is a wait on a
   * {@link ChangeSignal}, ended by the signal it is given.
   */
  async wait(key: string, waitMs: number, waited: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
    this.#callers.get(key)?.abort();
    const caller = new AbortController();
    this.#callers.set(key, caller);
    const timer = setTimeout(() => caller.abort(), waitMs);
    try {
      await waited(caller.signal);
      return !caller.signal.aborted;
    } finally {
      clearTimeout(timer);
      if (this.#callers.get(key) === caller) this.#callers.delete(key);
    }
  }

  /** Ends the wait made with `key`: its caller has gone. */
  stop(key: string): void {
    this.#callers.get(key)?.abort();
  }

  /** How many callers wait. */
  get size(): number {
    return this.#callers.size;
  }
}
