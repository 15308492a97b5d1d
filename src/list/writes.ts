// What a write to a list asks for and what it did, in the list's own terms: the same for every
// store, decided once by the list held in memory (held-list.ts), and what a list that does not live answers.
import type { Limit, ListUsage } from "./limits.ts";
import type { NewTask, Task } from "./task.ts";

/**
 * A POST's Idempotency-Key and what it asked for. The list remembers it with the task it added, in
 * the same atomic step, so that the same request again adds nothing and gets the same task.
 */
export interface IdempotencyKey {
  /** Whose key it is: each write token has keys of its own ("" when there are none). */
  readonly scope: string;
  readonly key: string;
  /** A hash of the task's title and completed: the same key with another task is refused. */
  readonly fingerprint: string;
}

/** What an edit changes: `title` and `completed` when present (a merge patch; a PUT sends both). */
export type TaskPatch = Partial<NewTask>;

/**
 * A write's precondition: the task versions (ETag values, unquoted) one of which must be the task's
 * current one, as `If-Match` names them; undefined for none (no `If-Match`, or `*`).
 */
export type IfMatch = readonly string[] | undefined;

/**
 * What a write did, the same for every store. An append returns added, replayed (a known key's
 * task, as it was first returned), key-reused (the key came with another task) or full; an update
 * returns updated, unchanged (the patch changed nothing), full (the new title does not fit),
 * not-found, gone or precondition-failed; a removal returns deleted, not-found, gone or
 * precondition-failed. `json` is the task's JSON as the list serves it, `version` its own version.
 */
export type WriteResult =
  | { readonly outcome: "added" | "replayed"; readonly task: Task; readonly json: string; readonly usage: ListUsage }
  | { readonly outcome: "key-reused"; readonly usage: ListUsage }
  | { readonly outcome: "full"; readonly limit: Limit; readonly usage: ListUsage }
  | {
      readonly outcome: "updated" | "unchanged";
      readonly task: Task;
      readonly json: string;
      readonly version: string;
      readonly usage: ListUsage;
    }
  | { readonly outcome: "deleted"; readonly usage: ListUsage }
  /** `not-found`: the id was never given; `gone`: the task was deleted; `precondition-failed`: If-Match named another version. */
  | { readonly outcome: "not-found" | "gone" | "precondition-failed"; readonly usage: ListUsage };

/**
 * What a write to a list that does not exist returns, whatever the write: `list-gone` when the list
 * was deleted (before the write took effect), `list-not-found` when it was never created.
 */
export type ListMissing = { readonly outcome: "list-gone" | "list-not-found" };

const MISSING = { gone: { outcome: "list-gone" }, "not-found": { outcome: "list-not-found" } } as const;

/** What a write answers for a list that does not live: deleted (`gone`) or never created. */
export function missingList(state: "gone" | "not-found"): ListMissing {
  return MISSING[state];
}

/** Whether a write found no list to write to. */
export function isListMissing(result: { readonly outcome: string }): result is ListMissing {
  return result.outcome === "list-gone" || result.outcome === "list-not-found";
}

/** What an append may return. */
export type AppendResult = Extract<WriteResult, { outcome: "added" | "replayed" | "key-reused" | "full" }>;
/** What an update may return. */
export type UpdateResult = Extract<
  WriteResult,
  { outcome: "updated" | "unchanged" | "full" | "not-found" | "gone" | "precondition-failed" }
>;
/** What a removal may return. */
export type RemoveResult = Extract<WriteResult, { outcome: "deleted" | "not-found" | "gone" | "precondition-failed" }>;
