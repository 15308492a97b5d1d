// Idempotency-Keys a list remembers: each with the task it added, as it was first returned, and a
// hash of what it asked for, each write token's oldest forgotten first.
import type { IdempotencyKey } from "./writes.ts";

/** What a remembered key says of a request that comes with it again. */
export type KeyMatch = { readonly taskId: number; readonly json: string } | "another-task" | undefined;

/** A key as a list keeps it. */
export interface RememberedKey {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly taskId: number;
  /** The task's JSON as it was first returned. */
  readonly json: string;
}

/** What a list's rules ask of its keys: all of them in memory, or the few a database handed over for one write. */
export interface KnownKeys {
  /** The task `key` added, "another-task" when it came with another task, or undefined when unknown. */
  match(key: IdempotencyKey): KeyMatch;
  /** The oldest keys of `scope` that one more key pushes out, when a scope holds at most `max`. */
  pushedOut(scope: string, max: number): string[];
  /** Remembers `key`, which added the task returned as `json`, and forgets `forget` of its scope. */
  remember(key: IdempotencyKey, taskId: number, json: string, forget: readonly string[]): void;
}

/**
 * The oldest keys of a scope holding `size` keys, `oldest` first, that one more pushes out when it
 * holds at most `max`.
 */
export function keysPushedOut(oldest: Iterable<string>, size: number, max: number): string[] {
  const out: string[] = [];
  for (const key of oldest) {
    if (size + 1 - out.length <= max) break;
    out.push(key);
  }
  return out;
}

/**
 * The keys of one list, bounded per scope (per write token), so that one token's keys never push
 * out another's.
 */
export class RememberedKeys implements KnownKeys {
  /** By scope, then by key; a Map keeps insertion order, so a scope's first entry is its oldest. */
  readonly #scopes = new Map<string, Map<string, RememberedKey>>();

  /** The keys a store kept, oldest first. */
  constructor(kept: Iterable<RememberedKey> = []) {
    for (const key of kept) this.#scope(key.scope).set(key.key, key);
  }

  match(key: IdempotencyKey): KeyMatch {
    const known = this.#scopes.get(key.scope)?.get(key.key);
    if (known === undefined) return undefined;
    return known.fingerprint === key.fingerprint ? { taskId: known.taskId, json: known.json } : "another-task";
  }

  pushedOut(scope: string, max: number): string[] {
    const keys = this.#scopes.get(scope);
    return keys === undefined ? [] : keysPushedOut(keys.keys(), keys.size, max);
  }

  remember(key: IdempotencyKey, taskId: number, json: string, forget: readonly string[]): void {
    const keys = this.#scope(key.scope);
    for (const old of forget) keys.delete(old);
    keys.set(key.key, { scope: key.scope, key: key.key, fingerprint: key.fingerprint, taskId, json });
  }

  #scope(scope: string): Map<string, RememberedKey> {
    let keys = this.#scopes.get(scope);
    if (keys === undefined) {
      keys = new Map();
      this.#scopes.set(scope, keys);
    }
    return keys;
  }
}
