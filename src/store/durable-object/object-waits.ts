// Calls that wait in a Durable Object for something to happen there, each under the key its caller
// gave, until it happens, their bound passes, or their caller goes.

/** A waiting caller: how to answer it, and the level it waits to be passed, if it waits for one. */
interface Waiter {
  readonly finish: (woken: boolean) => void;
  readonly mark: number | undefined;
}

/** The callers waiting in an object, by key: each is answered true once woken, else false. */
export class ObjectWaits {
  readonly #waiting = new Map<string, Waiter>();

  /**
   * Resolves true once {@link wake} is called with a level past `mark` (any level, without one), or
   * false after `waitMs`, once {@link stop} is called with `key`, or once another wait takes the same key.
   */
  wait(key: string, waitMs: number, mark?: number): Promise<boolean> {
    return new Promise((done) => {
      const finish = (woken: boolean) => {
        this.#waiting.delete(key);
        clearTimeout(timer);
        done(woken);
      };
      const timer = setTimeout(() => finish(false), waitMs);
      this.#waiting.get(key)?.finish(false);
      this.#waiting.set(key, { finish, mark });
    });
  }

  /**
   * Wakes the callers waiting for any change, and those whose mark `level` passed; every one when
   * no level is given. A look at each waiter: a thousand of them cost microseconds, and no reply.
   */
  wake(level = Number.POSITIVE_INFINITY): void {
    for (const { finish, mark } of this.#waiting.values()) if (mark === undefined || level > mark) finish(true);
  }

  /** Ends the wait made with `key`: its caller has gone. */
  stop(key: string): void {
    this.#waiting.get(key)?.finish(false);
  }

  /** How many callers wait. */
  get size(): number {
    return this.#waiting.size;
  }
}
