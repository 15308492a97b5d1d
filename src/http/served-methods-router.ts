// The app's router: Hono's TrieRouter, asked only about the methods the app serves, with the
// answers for fixed paths kept and a leading path parameter (a list's name) read apart.
import type { Params, Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

/**
 * What an unserved method is routed as: a name no route is added under and no object has, so
 * only what is added for every method ("ALL", Hono's middleware) matches it.
 */
const UNSERVED = "UNSERVED METHOD";

/**
 * A path parameter that opens the paths of a scope (`/lists/:name{pattern}`): the routes under it
 * are matched on what follows it, after one test of the parameter, rather than by the trie's
 * pattern search over the whole path.
 */
export interface ScopeParameter {
  /** The parameter's segment as the routes' paths write it, with the fixed part before it: `/lists/:name{pattern}`. */
  readonly path: string;
  /** The parameter's name. */
  readonly name: string;
  /** What the parameter's segment must be, whole. */
  readonly pattern: RegExp;
}

/** A match of a Hono router, as the TrieRouter gives it: each handler with its parameters. */
type Matched<T> = [[T, Params][]];

/** The most paths under the scope whose answers are kept; all are let go when it is reached. */
const KEPT_SCOPED_PATHS = 1024;

/**
 * Hono's TrieRouter, to which a request's method is passed only when some route serves it. Hono's
 * routers look the method up in plain objects, so a method named like a member of Object.prototype
 * (`constructor`, `toString`: valid HTTP tokens, which Deno's server passes on) would reach the
 * prototype and throw before any handler ran: a 500 the app never made. Any other method is routed
 * as none, so the app answers it as one it does not serve: 405 with `Allow` on its paths, else 404.
 * The request keeps its own method for everything else, its log line included.
 *
 * A request for a path a route was added under as it is (no parameter) gets the trie's answer kept
 * from the first such request: one map lookup. Routes under `scope` go to a trie of their own, by
 * the path that follows the scope's parameter, after one test of the parameter; the answers for
 * a fixed rest (`/lists/{name}/tasks`) are kept by path too, so that a list's own path costs what
 * `/tasks` does.
 */
export class ServedMethodsRouter<T> implements Router<T> {
  readonly name = "ServedMethodsRouter";
  readonly #inner = new TrieRouter<T>();
  readonly #served = new Set<string>();
  readonly #fixed = new FixedAnswers<T>(this.#inner);
  readonly #scope: ScopeParameter | undefined;
  readonly #scoped = new TrieRouter<T>();
  readonly #scopedFixed = new FixedAnswers<T>(this.#scoped);
  /** The fixed part of the paths before the scope's parameter, with its own last slash: `/base/lists/`. */
  #scopePrefix: string | undefined;
  /** Answers for paths under the scope whose rest is fixed (`/lists/{name}/tasks`), by path, then by method. */
  readonly #scopedAnswers = new Map<string, Map<string, Matched<T>>>();

  /** With `scope`, routes under that parameter are matched apart (see the class). */
  constructor(scope?: ScopeParameter) {
    this.#scope = scope;
  }

  add(method: string, path: string, handler: T): void {
    this.#served.add(method);
    this.#scopedAnswers.clear();
    const scope = this.#scope;
    const at = scope === undefined ? -1 : path.indexOf(scope.path);
    const rest = scope === undefined ? "" : path.slice(at + scope.path.length);
    if (scope !== undefined && at >= 0 && rest.startsWith("/")) {
      const base = path.slice(0, at);
      const prefix = `${base}${scope.path.slice(0, scope.path.lastIndexOf("/") + 1)}`;
      if (this.#scopePrefix === undefined || this.#scopePrefix === prefix) {
        this.#scopePrefix = prefix;
        this.#scoped.add(method, rest, handler);
        this.#scopedFixed.added(rest);
        return;
      }
    }
    this.#inner.add(method, path, handler);
    this.#fixed.added(path);
  }

  match(method: string, path: string): Result<T> {
    const routed = this.#served.has(method) ? method : UNSERVED;
    const prefix = this.#scopePrefix;
    if (prefix !== undefined && path.startsWith(prefix)) {
      const kept = this.#scopedAnswers.get(path)?.get(routed);
      if (kept !== undefined) return kept;
      const scoped = this.#scopedMatch(routed, path, prefix);
      if (scoped !== undefined) return scoped;
    }
    return this.#fixed.match(routed, path);
  }

  /** The routes under the scope that match `path`, if any; kept when the rest of the path is fixed. */
  #scopedMatch(method: string, path: string, prefix: string): Matched<T> | undefined {
    const end = path.indexOf("/", prefix.length);
    const scope = this.#scope as ScopeParameter;
    const value = end < 0 ? "" : path.slice(prefix.length, end);
    if (value === "" || !scope.pattern.test(value)) return undefined;
    const rest = path.slice(end);
    const [found] = this.#scopedFixed.match(method, rest);
    if (found.length === 0) return undefined;
    const answer: Matched<T> = [found.map(([handler, params]) => [handler, { ...params, [scope.name]: value }])];
    if (this.#scopedFixed.fixed(rest)) {
      if (this.#scopedAnswers.size >= KEPT_SCOPED_PATHS) this.#scopedAnswers.clear();
      let byMethod = this.#scopedAnswers.get(path);
      if (byMethod === undefined) {
        byMethod = new Map();
        this.#scopedAnswers.set(path, byMethod);
      }
      byMethod.set(method, answer);
    }
    return answer;
  }
}

/** A trie's answers for the paths added to it as they are, each kept from the first request for it. */
class FixedAnswers<T> {
  readonly #trie: TrieRouter<T>;
  /** The paths added without a parameter or wildcard, whose answer depends on the method alone. */
  readonly #paths = new Set<string>();
  /** Answers by path, then by method. */
  readonly #answers = new Map<string, Map<string, Matched<T>>>();

  constructor(trie: TrieRouter<T>) {
    this.#trie = trie;
  }

  added(path: string): void {
    // Another route added later may match a path answered already: answers are kept from the first request on.
    this.#answers.clear();
    if (!/[:*]/.test(path)) this.#paths.add(path);
  }

  /** Whether `path` was added as it is. */
  fixed(path: string): boolean {
    return this.#paths.has(path);
  }

  match(method: string, path: string): Matched<T> {
    if (!this.#paths.has(path)) return this.#trie.match(method, path) as Matched<T>;
    let byMethod = this.#answers.get(path);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#answers.set(path, byMethod);
    }
    let answer = byMethod.get(method);
    if (answer === undefined) {
      answer = this.#trie.match(method, path) as Matched<T>;
      byMethod.set(method, answer);
    }
    return answer;
  }
}
