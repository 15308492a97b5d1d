// The one function that writes a task change to a list in PostgreSQL: the change was decided in
// TypeScript (list/held-list.ts) against a copy of the list at a change number, and is written only
// if the list is still live at that number; it decides nothing else.
import type { ListChanges } from "../../engine/mirror.ts";
import { type ListChange, utf8Length } from "../../list/held-list.ts";
import type { ListUsage } from "../../list/limits.ts";
import { JOURNAL_BYTES, JOURNAL_CHANGES } from "../../list/recent-changes.ts";
import { deletedTaskJson, FIELD_COLUMNS, TASK_FIELDS } from "../../list/task.ts";
import { LOGGED_JSON } from "./journal-sql.ts";
import { changedRow } from "./list-sql.ts";
import { fieldValues, NEW_VALUE_PARAMETERS, NO_FIELD_VALUES, newValue } from "./task-columns.ts";

/** Each field's new value, as the function's parameters name them, in the columns' order. */
const NEW_VALUES = TASK_FIELDS.map(newValue).join(", ");
/** Each field's column set to its new value. */
const NEW_SETTINGS = TASK_FIELDS.map((field) => `${field.column} = ${newValue(field)}`).join(", ");

/** Changes a write that met others learns from its answer at most; past that it catches up as a read does. */
const MAX_CAUGHT_UP = 1000;

/**
 * `apply_change(list, at, kind, id, created, title_json, completed, task_count, json_bytes, bytes,
 * forgotten, key_scope, key, fingerprint, task_json, forget_keys, channel)`: one statement and one
 * transaction. Unless the list's row is live at change `at`, it writes nothing and answers
 * `conflict`, `list-gone` or `list-not-found`. Else it sets the list's counters to what the change
 * left, writes the task's row (`add`, `update` or `delete`), a deletion's tombstone with every one
 * up to `forgotten` dropped, an added task's Idempotency-Key and the keys it pushes out, journals
 * the change (`bytes` of JSON) dropping the oldest past the last ${JOURNAL_CHANGES} changes and
 * ${JOURNAL_BYTES} bytes, tells the schema's channel the list and the change, and answers `applied`. Its
 * UPDATE waits on a write to the same list that has not committed, then reads its row anew: of two
 * changes decided at one change number, one is applied and the other answered `conflict`, with the
 * list's state and, when the journal holds them, the changes after `at` (see {@link caughtUp}).
 */
export function applyFunction(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.apply_change(
      list_name text, at bigint, kind text, task_id integer, task_created bigint, ${NEW_VALUE_PARAMETERS},
      new_count integer, new_bytes bigint, bytes bigint, new_forgotten bigint, key_scope text,
      key_value text, key_fingerprint text, key_json text, forget_keys text, channel text
    ) RETURNS TABLE (outcome text, list_instance text, list_change bigint, list_last_id integer, list_forgotten bigint,
      covered boolean, row_id integer, row_change bigint, row_created bigint, row_json text)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      new_change bigint := at + 1;
      l record;
      holds boolean;
      new_total bigint;
      kept_from bigint;
      forgot integer;
    BEGIN
      UPDATE ${s}.lists SET change_number = new_change, task_count = new_count, json_bytes = new_bytes,
          last_id = greatest(last_id, task_id), forgotten = greatest(forgotten, new_forgotten)
        WHERE name = list_name AND live AND change_number = at;
      IF NOT FOUND THEN
        SELECT * INTO l FROM ${s}.lists WHERE name = list_name;
        IF NOT FOUND OR NOT l.live THEN
          RETURN QUERY SELECT CASE WHEN FOUND THEN 'list-gone' ELSE 'list-not-found' END, NULL::text, NULL::bigint,
            NULL::integer, NULL::bigint, NULL::boolean, NULL::integer, NULL::bigint, NULL::bigint, NULL::text;
          RETURN;
        END IF;
        -- The changes since, when the journal holds them all (it has every change from its first on)
        -- and they are few: the writer catches up from them instead of asking again.
        holds := l.change_number > at AND l.change_number - at <= ${MAX_CAUGHT_UP}
          AND EXISTS (SELECT FROM ${s}.journal j WHERE j.list = list_name AND j.change = at + 1);
        RETURN QUERY SELECT 'conflict'::text, l.instance, l.change_number, l.last_id, l.forgotten, holds,
          NULL::integer, NULL::bigint, NULL::bigint, NULL::text;
        IF holds THEN
          RETURN QUERY SELECT NULL::text, NULL::text, NULL::bigint, NULL::integer, NULL::bigint, NULL::boolean, j.id,
            j.change, j.created, CASE WHEN j.completed IS NULL THEN NULL ELSE ${LOGGED_JSON} END
          FROM ${s}.journal j WHERE j.list = list_name AND j.change > at AND j.change <= l.change_number ORDER BY j.change;
        END IF;
        RETURN;
      END IF;
      IF kind = 'add' THEN
        INSERT INTO ${s}.tasks (list, id, ${FIELD_COLUMNS}, created, changed)
          VALUES (list_name, task_id, ${NEW_VALUES}, new_change, new_change);
        IF key_value IS NOT NULL THEN
          INSERT INTO ${s}.idempotency_keys (list, scope, key, fingerprint, task_id, task_json)
            VALUES (list_name, key_scope, key_value, key_fingerprint, task_id, key_json);
          DELETE FROM ${s}.idempotency_keys k WHERE k.list = list_name AND k.scope = key_scope
            AND k.key IN (SELECT jsonb_array_elements_text(forget_keys::jsonb));
          GET DIAGNOSTICS forgot = ROW_COUNT;
          INSERT INTO ${s}.idempotency_scopes AS c (list, scope, keys) VALUES (list_name, key_scope, 1 - forgot)
            ON CONFLICT (list, scope) DO UPDATE SET keys = c.keys + 1 - forgot;
        END IF;
      ELSIF kind = 'update' THEN
        UPDATE ${s}.tasks SET ${NEW_SETTINGS}, changed = new_change
          WHERE list = list_name AND id = task_id;
      ELSE
        DELETE FROM ${s}.tasks WHERE list = list_name AND id = task_id;
        INSERT INTO ${s}.deletions (list, change, id) VALUES (list_name, new_change, task_id);
        DELETE FROM ${s}.deletions d WHERE d.list = list_name AND d.change <= new_forgotten;
      END IF;
      -- The journal's last row holds the total of the change before: the list's row is held.
      SELECT j.total INTO new_total FROM ${s}.journal j WHERE j.list = list_name ORDER BY j.change DESC LIMIT 1;
      new_total := COALESCE(new_total, 0) + bytes;
      INSERT INTO ${s}.journal (list, change, id, created, ${FIELD_COLUMNS}, total)
        VALUES (list_name, new_change, task_id, task_created, ${NEW_VALUES}, new_total);
      SELECT j.change INTO kept_from FROM ${s}.journal j WHERE j.list = list_name AND j.total > new_total - ${JOURNAL_BYTES}
        ORDER BY j.change LIMIT 1;
      DELETE FROM ${s}.journal j
        WHERE j.list = list_name AND j.change < GREATEST(kept_from, new_change - ${JOURNAL_CHANGES - 1});
      -- Delivered at commit to every process listening on the schema's channel: the list's name and the
      -- change number, apart by a space, which no name holds.
      PERFORM pg_notify(channel, list_name || ' ' || new_change);
      RETURN QUERY SELECT 'applied'::text, NULL::text, NULL::bigint, NULL::integer, NULL::bigint, NULL::boolean,
        NULL::integer, NULL::bigint, NULL::bigint, NULL::text;
    END
    $fn$;`;
}

/**
 * What a write that met another change learns of the list from the rows it answered: the
 * changes after the one it was decided at, as a catch-up's reply, when the journal held them.
 */
export function caughtUp(at: number, [state, ...rows]: readonly Record<string, unknown>[]): ListChanges | undefined {
  if (state?.covered !== true) return undefined;
  const change = Number(state.list_change);
  return {
    instance: String(state.list_instance),
    change,
    highestId: Number(state.list_last_id),
    forgotten: Number(state.list_forgotten),
    after: at,
    through: change,
    journal: true,
    rows: rows.map(changedRow),
  };
}

/** The parameters of the statement that calls it (`Statements.apply`) for `change`, decided at change `at` of list `name`, which leaves it at `usage`. */
export function applyParameters(
  name: string,
  at: number,
  change: ListChange,
  usage: ListUsage,
  channel: string,
): unknown[] {
  const counters = [usage.tasks, usage.bytes];
  const unkeyed = [null, null, null, null, null, channel];
  if (change.kind === "delete") {
    const bytes = deletedTaskJson(change.id).length;
    const row = [name, at, "delete", change.id, change.created, ...NO_FIELD_VALUES];
    return [...row, ...counters, bytes, change.forgotten, ...unkeyed];
  }
  const { task } = change;
  if (change.kind === "update") {
    const row = [name, at, "update", task.id, change.created, ...fieldValues(task)];
    return [...row, ...counters, change.json.byteLength, 0, ...unkeyed];
  }
  const key = change.key;
  const keyed =
    key === undefined
      ? unkeyed
      : [key.scope, key.key, key.fingerprint, change.text, JSON.stringify(change.forgetKeys), channel];
  const row = [name, at, "add", task.id, change.change, ...fieldValues(task)];
  return [...row, ...counters, utf8Length(change.text), 0, ...keyed];
}
