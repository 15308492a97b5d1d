// The app's router: Hono's TrieRouter, asked only about the methods the app serves.
import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

/**
 * What an unserved method is routed as: a name no route is added under and no object has, so
 * only what is added for every method ("ALL", Hono's middleware) matches it.
 */
const UNSERVED = "UNSERVED METHOD";

/**
 * Hono's TrieRouter, to which a request's method is passed only when some route serves it. Hono's
 * routers look the method up in plain objects, so a method named like a member of Object.prototype
 * (`constructor`, `toString`: valid HTTP tokens, which Deno's server passes on) would reach the
 * prototype and throw before any handler ran: a 500 the app never made. Any other method is routed
 * as none, so the app answers it as one it does not serve: 405 with `Allow` on its paths, else 404.
 * The request keeps its own method for everything else, its log line included.
 */
export class ServedMethodsRouter<T> implements Router<T> {
  readonly name = "ServedMethodsRouter";
  readonly #inner = new TrieRouter<T>();
  readonly #served = new Set<string>();

  add(method: string, path: string, handler: T): void {
    this.#served.add(method);
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    return this.#inner.match(this.#served.has(method) ? method : UNSERVED, path);
  }
}
