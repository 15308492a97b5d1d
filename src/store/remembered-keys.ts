// Idempotency-Keys a list in this process's memory remembers: each with the task it added, as it
// was first answered, and a hash of what it asked for, the oldest forgotten first.
import type { IdempotencyKey } from "./store.ts";

/** What a remembered key says of a request that comes with it again. */
export type KeyMatch = { readonly taskId: number; readonly json: string } | "another-task" | undefined;

/** The keys of one list, bounded by the count the caller gives. */
export class RememberedKeys {
  /** By scope and key; a Map keeps insertion order, so its first entry is the oldest. */
  readonly #keys = new Map<string, { readonly fingerprint: string; readonly taskId: number; readonly json: string }>();

  /** The task `key` added, "another-task" when it came with another task, or undefined when unknown. */
  match(key: IdempotencyKey): KeyMatch {
    const known = this.#keys.get(id(key));
    if (known === undefined) return undefined;
    return known.fingerprint === key.fingerprint ? { taskId: known.taskId, json: known.json } : "another-task";
  }

  /** Remembers that `key` added task `taskId`, answered as `json`, forgetting the oldest keys past `max`. */
  remember(key: IdempotencyKey, taskId: number, max: number, json: string): void {
    this.#keys.set(id(key), { fingerprint: key.fingerprint, taskId, json });
    for (const oldest of this.#keys.keys()) {
      if (this.#keys.size <= max) break;
      this.#keys.delete(oldest);
    }
  }

  /** Forgets `key`, whose task the list no longer holds. */
  forget(key: IdempotencyKey): void {
    this.#keys.delete(id(key));
  }
}

/** Scope and key in one string; the scope is a hash of hex digits, so the separator is unambiguous. */
function id(key: IdempotencyKey): string {
  return `${key.scope} ${key.key}`;
}
