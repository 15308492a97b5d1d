// The journal of each list in PostgreSQL: its latest changes, every one with the task as that change left
// it, written by each write in its own transaction, so that a process's copy of the list hears of
// every change another process made, not only of each task's last.
import { JOURNAL_BYTES, JOURNAL_CHANGES } from "../../list/recent-changes.ts";
import { postgresTaskJson } from "../../list/task-sql.ts";

/** A journal row's task JSON, from a row `j` of the journal. */
const LOGGED_JSON = postgresTaskJson({ id: "j.id", titleJson: "j.title_json", completed: "j.completed" });

/**
 * The call that journals a change, made by every write after it took the list's row: `args` are
 * the list's name, the change number, the task's id, its creation's change number, its title's JSON and completed
 * (NULL, NULL for a deletion), and the bytes of JSON the change carries.
 */
export function recordChange(s: string, args: string): string {
  return `${s}.record_change(${args})`;
}

/**
 * Journals a change and drops the oldest past the last ${JOURNAL_CHANGES} changes, and past the
 * changes after which ${JOURNAL_BYTES} bytes or more came: what a process's copy of the list keeps.
 * Each statement of it sees what the writes before committed, since it runs with the list's row
 * held: the last row's total is the previous change's.
 */
export function recordChangeFunction(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.record_change(
      list_name text, change_number bigint, task_id integer, task_created bigint, task_title_json text, task_completed boolean,
      bytes bigint
    ) RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE
      new_total bigint;
      kept_from bigint;
    BEGIN
      SELECT j.total INTO new_total FROM ${s}.journal j WHERE j.list = list_name ORDER BY j.change DESC LIMIT 1;
      new_total := COALESCE(new_total, 0) + bytes;
      INSERT INTO ${s}.journal (list, change, id, created, title_json, completed, total)
        VALUES (list_name, change_number, task_id, task_created, task_title_json, task_completed, new_total);
      SELECT j.change INTO kept_from FROM ${s}.journal j WHERE j.list = list_name AND j.total > new_total - ${JOURNAL_BYTES}
        ORDER BY j.change LIMIT 1;
      DELETE FROM ${s}.journal j
        WHERE j.list = list_name AND j.change < GREATEST(kept_from, change_number - ${JOURNAL_CHANGES - 1});
    END
    $fn$;`;
}

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
