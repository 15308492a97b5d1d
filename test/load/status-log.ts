/** Counts the answers a load run got, by kind of request and status, and keeps the first unexpected ones. */
export class StatusLog {
  readonly #counts = new Map<string, number>();
  readonly #unexpected: string[] = [];
  #unexpectedCount = 0;

  /** Counts one answer; `expected` says whether it is one the contract allows here. Returns `expected`. */
  record(kind: string, status: number, body: string, expected: boolean): boolean {
    const key = `${kind} ${status}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    if (!expected) {
      this.#unexpectedCount++;
      if (this.#unexpected.length < 5) this.#unexpected.push(`${kind} answered ${status}: ${body.slice(0, 200)}`);
    }
    return expected;
  }

  /** Responses counted by "kind status". */
  statuses(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  /** Empty when every response was expected; else the total, then the first few answers. */
  unexpected(): string[] {
    return this.#unexpectedCount === 0 ? [] : [`${this.#unexpectedCount} in all`, ...this.#unexpected];
  }
}
