// The functions that append a task to a list in PostgreSQL, with and without an Idempotency-Key:
// each one statement and one transaction, the list's own row locked throughout (no other list's).
import { postgresTaskJson } from "../../list/task-sql.ts";
import { recordChange } from "./journal-sql.ts";

/**
 * What both return: the outcome (`list-gone` and `list-not-found` for a list deleted or never
 * created), the task's id, the list's count and bytes, the limit a full list broke, and a replayed
 * task's JSON.
 */
const RETURNS = `RETURNS TABLE (outcome text, id integer, task_count integer, json_bytes float8, full_limit text,
      task_json text)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column`;

/**
 * `append_task` adds a task with the next id unless the list would break a limit: `rest` is the
 * task's JSON bytes but for its id's digits, which only the list's row knows. `append_keyed_task`
 * claims its key first, so a second request with it waits on the unique index until the first
 * commits, then returns the first's task; a key that added nothing (the list full) is forgotten in
 * the same transaction, so a failure remembers nothing. A new key forgets the oldest of its own
 * scope past the limit, never another scope's. A write to a list that is not live is refused
 * once it holds the list's row, so it takes effect before a deletion or answers `list-gone`.
 */
export function appendFunctions(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.append_task(
      list_name text, rest integer, max_tasks bigint, max_bytes bigint, new_title_json text, new_completed boolean, channel text
    ) ${RETURNS}
    DECLARE
      l record;
      added bigint;
      new_id integer;
      new_change bigint;
    BEGIN
      SELECT * INTO l FROM ${s}.lists WHERE name = list_name FOR UPDATE;
      IF NOT FOUND OR NOT l.live THEN
        RETURN QUERY SELECT CASE WHEN FOUND THEN 'list-gone' ELSE 'list-not-found' END, NULL::integer, 0, 2::float8,
          NULL::text, NULL::text;
        RETURN;
      END IF;
      -- Its JSON, its id's digits and a comma before every task but the first.
      added := rest + length((l.last_id + 1)::text) + (l.task_count > 0)::integer;
      IF l.task_count >= max_tasks OR l.json_bytes + added > max_bytes THEN
        RETURN QUERY SELECT 'full'::text, NULL::integer, l.task_count, l.json_bytes::float8,
          CASE WHEN l.task_count >= max_tasks THEN 'tasks' ELSE 'bytes' END, NULL::text;
        RETURN;
      END IF;
      UPDATE ${s}.lists SET task_count = task_count + 1, last_id = last_id + 1, json_bytes = json_bytes + added,
          change_number = change_number + 1
        WHERE name = list_name RETURNING last_id, change_number INTO new_id, new_change;
      INSERT INTO ${s}.tasks (list, id, title_json, completed, created, changed)
        VALUES (list_name, new_id, new_title_json, new_completed, new_change, new_change);
      PERFORM ${recordChange(s, "list_name, new_change, new_id, new_change, new_title_json, new_completed, rest + length(new_id::text)")};
      -- Delivered at commit to every process listening on the schema's channel: it names the list.
      PERFORM pg_notify(channel, list_name);
      RETURN QUERY SELECT 'added'::text, new_id, l.task_count + 1, (l.json_bytes + added)::float8, NULL::text,
        NULL::text;
    END
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.append_keyed_task(
      list_name text, rest integer, max_tasks bigint, max_bytes bigint, new_title_json text, new_completed boolean,
      channel text, key_scope text, key_value text, key_fingerprint text, max_keys integer
    ) ${RETURNS}
    DECLARE
      known record;
      appended record;
      kept integer;
    BEGIN
      INSERT INTO ${s}.idempotency_keys (list, scope, key, fingerprint)
        VALUES (list_name, key_scope, key_value, key_fingerprint)
        ON CONFLICT (list, scope, key) DO NOTHING;
      IF NOT FOUND THEN
        -- The task as first returned, even when it was edited or deleted since.
        SELECT k.fingerprint = key_fingerprint AS same, k.task_id, k.task_json INTO known
          FROM ${s}.idempotency_keys k WHERE k.list = list_name AND k.scope = key_scope AND k.key = key_value;
        RETURN QUERY SELECT CASE WHEN known.same THEN 'replayed' ELSE 'key-reused' END, known.task_id,
          l.task_count, l.json_bytes::float8, NULL::text, known.task_json FROM ${s}.lists l WHERE l.name = list_name;
        RETURN;
      END IF;
      SELECT * INTO appended FROM ${s}.append_task(list_name, rest, max_tasks, max_bytes, new_title_json,
        new_completed, channel);
      IF appended.outcome <> 'added' THEN
        DELETE FROM ${s}.idempotency_keys k WHERE k.list = list_name AND k.scope = key_scope AND k.key = key_value;
      ELSE
        UPDATE ${s}.idempotency_keys k SET task_id = appended.id,
            task_json = ${postgresTaskJson({ id: "appended.id", titleJson: "new_title_json", completed: "new_completed" })}
          WHERE k.list = list_name AND k.scope = key_scope AND k.key = key_value;
        INSERT INTO ${s}.idempotency_scopes AS c (list, scope, keys) VALUES (list_name, key_scope, 1)
          ON CONFLICT (list, scope) DO UPDATE SET keys = c.keys + 1 RETURNING c.keys INTO kept;
        IF kept > max_keys THEN
          DELETE FROM ${s}.idempotency_keys k WHERE k.seq IN (
            SELECT o.seq FROM ${s}.idempotency_keys o
              WHERE o.list = list_name AND o.scope = key_scope AND o.task_id IS NOT NULL
              ORDER BY o.seq LIMIT kept - max_keys
          );
          UPDATE ${s}.idempotency_scopes c SET keys = max_keys WHERE c.list = list_name AND c.scope = key_scope;
        END IF;
      END IF;
      RETURN QUERY SELECT appended.outcome, appended.id, appended.task_count, appended.json_bytes,
        appended.full_limit, NULL::text;
    END
    $fn$;`;
}
