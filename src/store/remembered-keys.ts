// Idempotency-Keys a list in this process's memory remembers: each with the task it added, as it
// was first returned, and a hash of what it asked for, each write token's oldest forgotten first.
import type { IdempotencyKey } from "./store.ts";

/** What a remembered key says of a request that comes with it again. */
export type KeyMatch = { readonly taskId: number; readonly json: string } | "another-task" | undefined;

interface Remembered {
  readonly fingerprint: string;
  readonly taskId: number;
  readonly json: string;
}

/**
 * The keys of one list, bounded per scope (per write token) by the count the caller gives, so that
 * one token's keys never push out another's.
 */
export class RememberedKeys {
  /** By scope, then by key; a Map keeps insertion order, so a scope's first entry is its oldest. */
  readonly #scopes = new Map<string, Map<string, Remembered>>();

  /** The task `key` added, "another-task" when it came with another task, or undefined when unknown. */
  match(key: IdempotencyKey): KeyMatch {
    const known = this.#scopes.get(key.scope)?.get(key.key);
    if (known === undefined) return undefined;
    return known.fingerprint === key.fingerprint ? { taskId: known.taskId, json: known.json } : "another-task";
  }

  /** Remembers that `key` added task `taskId`, returned as `json`, forgetting its scope's oldest keys past `max`. */
  remember(key: IdempotencyKey, taskId: number, max: number, json: string): void {
    let keys = this.#scopes.get(key.scope);
    if (keys === undefined) {
      keys = new Map();
      this.#scopes.set(key.scope, keys);
    }
    keys.set(key.key, { fingerprint: key.fingerprint, taskId, json });
    for (const oldest of keys.keys()) {
      if (keys.size <= max) break;
      keys.delete(oldest);
    }
  }

  /** Forgets `key`, whose task the list no longer holds. */
  forget(key: IdempotencyKey): void {
    this.#scopes.get(key.scope)?.delete(key.key);
  }
}
