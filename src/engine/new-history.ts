// Where a list restored from a copy starts again: a new instance, and change numbers past any the
// list gave before, so no ETag or cursor a client kept from the list as it went on means anything.

/**
 * Change numbers a list is taken never to give per millisecond, on average since the last time it
 * started a new history (or since 1970): appends and edits take one statement each, so no list
 * comes near it. A new history starts at the clock's milliseconds times this (about 1.8e14 in
 * 2026), a cursor's 15 digits lasting until 2286.
 */
export const CHANGES_PER_MS = 100;

/** What the operator is told once a list restored from a copy starts a new history. */
export const NEW_HISTORY =
  "the list starts a new history: ETags from before the restore no longer match, and cursors from before it get a reset";

/** A random instance: sets a list's versions apart from every other list's, and from its own before a restore. */
export function newInstance(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}

/**
 * The change number from which a list whose last change is `change` starts a new history at
 * `now`: past every change number the list gave before the copy it was restored from was put back
 * (see {@link CHANGES_PER_MS}), however far it went on after the copy was made.
 */
export function historyStart(change: number, now: number): number {
  return Math.max(change + 1, Math.floor(now) * CHANGES_PER_MS);
}
