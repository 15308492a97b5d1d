// The SQL that edits and deletes a task of a list in PostgreSQL: each a function, so that its checks
// and its write are one statement and one transaction, the list's own row locked throughout.
import { MAX_TOMBSTONES } from "../../list/change-log.ts";
import { postgresTaskJson } from "../../list/task-sql.ts";
import { recordChange } from "./journal-sql.ts";

/** A task's JSON as the list shows it, from a row `t` of the tasks table. */
const ROW_JSON = postgresTaskJson({ id: "t.id", titleJson: "t.title_json", completed: "t.completed" });

/**
 * The If-Match versions, sent as a JSON array (or null for none): the driver sends no arrays
 * without its type lookup. An empty array (an If-Match of weak tags only) stays empty, matching nothing.
 */
function versions(parameter: string): string {
  return `(CASE WHEN ${parameter}::text IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(${parameter}::text::jsonb)) END)`;
}

/** The statements that call the edit functions; their If-Match parameter is a JSON array of versions, or null. */
export function editStatements(s: string): { readonly update: string; readonly remove: string } {
  return {
    update: `SELECT * FROM ${s}.update_task($1, $2, $3, $4, ${versions("$5")}, $6, $7)`,
    remove: `SELECT * FROM ${s}.remove_task($1, $2, ${versions("$3")}, $4)`,
  };
}

/**
 * The edit functions. Each returns one row: its outcome (`list-gone` or `list-not-found` for a list
 * deleted or never created), the task's JSON and version, and the list's count and bytes.
 */
export function editFunctions(s: string): string {
  const returns = `RETURNS TABLE (outcome text, task_json text, version text, task_count integer, json_bytes float8)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      l record;
      t record;
      current_version text;
      new_change bigint;
      old_bytes integer;
      new_json text;`;
  const found = `SELECT * INTO l FROM ${s}.lists WHERE name = list_name FOR UPDATE;
      IF NOT FOUND OR NOT l.live THEN
        RETURN QUERY SELECT CASE WHEN FOUND THEN 'list-gone' ELSE 'list-not-found' END, NULL::text, NULL::text, 0,
          2::float8;
        RETURN;
      END IF;
      SELECT * INTO t FROM ${s}.tasks WHERE list = list_name AND id = task_id;
      IF NOT FOUND THEN
        RETURN QUERY SELECT CASE WHEN task_id BETWEEN 1 AND l.last_id THEN 'gone' ELSE 'not-found' END,
          NULL::text, NULL::text, l.task_count, l.json_bytes::float8;
        RETURN;
      END IF;
      current_version := l.instance || '-' || task_id || '-' || t.changed;
      IF if_match IS NOT NULL AND NOT (current_version = ANY (if_match)) THEN
        RETURN QUERY SELECT 'precondition-failed'::text, NULL::text, NULL::text, l.task_count, l.json_bytes::float8;
        RETURN;
      END IF;
      old_bytes := octet_length(${ROW_JSON});`;
  return `CREATE OR REPLACE FUNCTION ${s}.update_task(
      list_name text, task_id bigint, new_title_json text, new_completed boolean, if_match text[], max_bytes bigint, channel text
    ) ${returns}
    BEGIN
      ${found}
      IF COALESCE(new_title_json, t.title_json) = t.title_json AND COALESCE(new_completed, t.completed) = t.completed THEN
        RETURN QUERY SELECT 'unchanged'::text, ${ROW_JSON}, current_version, l.task_count, l.json_bytes::float8;
        RETURN;
      END IF;
      t.title_json := COALESCE(new_title_json, t.title_json);
      t.completed := COALESCE(new_completed, t.completed);
      new_json := ${ROW_JSON};
      IF octet_length(new_json) > old_bytes AND l.json_bytes + octet_length(new_json) - old_bytes > max_bytes THEN
        RETURN QUERY SELECT 'full'::text, NULL::text, NULL::text, l.task_count, l.json_bytes::float8;
        RETURN;
      END IF;
      UPDATE ${s}.lists SET change_number = change_number + 1, json_bytes = json_bytes + octet_length(new_json) - old_bytes
        WHERE name = list_name RETURNING change_number, json_bytes INTO new_change, l.json_bytes;
      UPDATE ${s}.tasks SET title_json = t.title_json, completed = t.completed, changed = new_change
        WHERE list = list_name AND id = task_id;
      PERFORM ${recordChange(s, "list_name, new_change, task_id::integer, t.created, t.title_json, t.completed, octet_length(new_json)")};
      PERFORM pg_notify(channel, list_name);
      RETURN QUERY SELECT 'updated'::text, new_json, l.instance || '-' || task_id || '-' || new_change, l.task_count,
        l.json_bytes::float8;
    END
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.remove_task(list_name text, task_id bigint, if_match text[], channel text) ${returns}
      forgotten_through bigint;
    BEGIN
      ${found}
      UPDATE ${s}.lists SET change_number = change_number + 1, task_count = task_count - 1,
          json_bytes = json_bytes - old_bytes - (l.task_count > 1)::integer
        WHERE name = list_name RETURNING change_number, task_count, json_bytes INTO new_change, l.task_count, l.json_bytes;
      DELETE FROM ${s}.tasks WHERE list = list_name AND id = task_id;
      INSERT INTO ${s}.deletions (list, change, id) VALUES (list_name, new_change, task_id);
      PERFORM ${recordChange(s, `list_name, new_change, task_id::integer, t.created, NULL, NULL, length('{"id":' || task_id || '}')`)};
      -- At most ${MAX_TOMBSTONES} deletions are remembered: a cursor older than the last forgotten is reset.
      SELECT max(d.change) INTO forgotten_through FROM (
        SELECT d.change FROM ${s}.deletions d WHERE d.list = list_name ORDER BY d.change DESC OFFSET ${MAX_TOMBSTONES}
      ) d;
      IF forgotten_through IS NOT NULL THEN
        DELETE FROM ${s}.deletions d WHERE d.list = list_name AND d.change <= forgotten_through;
        UPDATE ${s}.lists SET forgotten = forgotten_through WHERE name = list_name;
      END IF;
      PERFORM pg_notify(channel, list_name);
      RETURN QUERY SELECT 'deleted'::text, NULL::text, NULL::text, l.task_count, l.json_bytes::float8;
    END
    $fn$;`;
}
