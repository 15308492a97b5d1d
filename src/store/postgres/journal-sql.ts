// The journal of each list in PostgreSQL: its latest changes, every one with the task as that change left
// it, written by each write in its own transaction (apply-sql.ts), so that a process's copy of the
// list hears of every change another process made, not only of each task's last.
import { postgresTaskJson } from "./task-columns.ts";

/** A journal row's task JSON, from a row `j` of the journal. */
export const LOGGED_JSON = postgresTaskJson("j.");

/**
 * The catch-up query's answer from the journal, as common table expressions after its `state` (with
 * the reader's `after`, and `followed` when the reader's copy is of this list and can be brought up
 * to date from there, change 0 too), of the list named `$5`: `logged_kept` holds every change after
 * the reader's, up to about `$3` bytes or `$4` changes; `logged_reply` the last change they reach;
 * `mode.journal` whether they are every change from the reader's to the reply's `through`, which the
 * journal then answers.
 */
export function journalReply(s: string): string {
  return `logged AS (
  -- None for a reader starting from nothing, nor one the journal does not reach back to.
  SELECT j.change, j.id, j.created, CASE WHEN j.completed IS NULL THEN NULL ELSE ${LOGGED_JSON} END AS json
  FROM ${s}.journal j
  WHERE j.list = $5 AND j.change > (SELECT after FROM state) AND (SELECT followed FROM state)
    AND (SELECT min(change) FROM ${s}.journal WHERE list = $5) <= (SELECT after FROM state) + 1
  ORDER BY j.change LIMIT $4
), logged_chunk AS (
  SELECT *, sum(COALESCE(octet_length(json), 0) + 1) OVER (ORDER BY change) - COALESCE(octet_length(json), 0) - 1
    AS before FROM logged
), logged_kept AS (
  SELECT * FROM logged_chunk WHERE before < $3
), logged_reply AS (
  SELECT CASE WHEN (SELECT count(*) FROM logged_kept) < (SELECT count(*) FROM logged) OR (SELECT count(*) FROM logged) >= $4
      THEN max(change) ELSE (SELECT change_number FROM state) END AS through,
    count(*) AS changes
  FROM logged_kept
), mode AS (
  -- Every change, none trimmed: a list restored from a dump starts with none.
  SELECT (SELECT followed FROM state) AND changes = through - (SELECT after FROM state) AS journal FROM logged_reply
)`;
}
