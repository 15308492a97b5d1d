// Calls that wait in a Durable Object for something to happen there, each under the key its caller
// gave, until it happens, their bound passes, or their caller goes.

/** The callers waiting in an object, by key: each is answered true once woken, else false. */
export class ObjectWaits {
  readonly #waiting = new Map<string, (woken: boolean) => void>();

  /**
   * Resolves true once {@link wake} is called, or false after `waitMs`, once {@link stop} is called
   * with `key`, or once another wait takes the same key.
   */
  wait(key: string, waitMs: number): Promise<boolean> {
    return new Promise((done) => {
      const finish = (woken: boolean) => {
        this.#waiting.delete(key);
        clearTimeout(timer);
        done(woken);
      };
      const timer = setTimeout(() => finish(false), waitMs);
      this.#waiting.get(key)?.(false);
      this.#waiting.set(key, finish);
    });
  }

  /** Wakes every waiting caller. */
  wake(): void {
    for (const finish of this.#waiting.values()) finish(true);
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
