// One request a Worker serves, as a store that keeps something for the length of a request sees it.

/**
 * The request whose code runs now, known by identity: what a store keeps for it (a database
 * client) must never serve another request, which Workers forbid. It says when its response is made.
 */
export class RequestWork {
  #responded = false;
  #afterResponse: (() => void)[] = [];

  /** Makes the response with `respond`, then runs what waited for it, inside the request. */
  async serve<T>(respond: () => Promise<T>): Promise<T> {
    try {
      return await respond();
    } finally {
      this.#responded = true;
      for (const done of this.#afterResponse.splice(0)) done();
    }
  }

  /** Calls `done` once the response is made, inside the request. */
  afterResponse(done: () => void): void {
    if (this.#responded) done();
    else this.#afterResponse.push(done);
  }
}
