// The functions that create, retitle and delete lists in PostgreSQL: the rules list-directory.ts
// decides in TypeScript, decided here in SQL, since several processes write at once. Each takes the
// directory's row first, so list writes follow one another; a task write never takes it.

/** What every list function returns: its outcome and, for a list written, its name, title's JSON and version. */
const RETURNS = `RETURNS TABLE (outcome text, name text, title_json text, version text, replay_json text)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column`;

/** The statements that call them. An If-Match is sent as JSON: null for none, `"*"` for any, else an array of versions. */
export function listStatements(s: string): {
  readonly directory: string;
  readonly create: string;
  readonly put: string;
  readonly patch: string;
  readonly remove: string;
} {
  return {
    directory: `SELECT d.instance || '-d' || d.change AS version,
  '[' || COALESCE((SELECT string_agg('{"name":"' || l.name || '","title":' || l.title_json || '}', ',' ORDER BY l.position)
    FROM ${s}.lists l WHERE l.live), '') || ']' AS json
FROM ${s}.directory d WHERE d.singleton`,
    create: `SELECT * FROM ${s}.create_list($1, $2, $3, $4, $5, $6, $7)`,
    put: `SELECT * FROM ${s}.put_list($1, $2, $3::text::jsonb, $4, $5)`,
    patch: `SELECT * FROM ${s}.patch_list($1, $2, $3::text::jsonb)`,
    remove: `SELECT * FROM ${s}.remove_list($1, $2::text::jsonb, $3)`,
  };
}

/**
 * `made_list` makes a list live under the directory's row, which the caller holds: past MAX_LISTS
 * (the default list counts) it answers `full`; a deleted name continues its ids and change numbers,
 * its making a change of its own (as `madeAgain` in list-directory.ts), forgets everything before (a
 * new instance, every cursor the old list gave reset), and comes last.
 * `create_list` is a POST (a name chosen at random by the caller: `taken` when any list ever had
 * it, and the caller draws again), with its Idempotency-Key checked before MAX_LISTS; `put_list`
 * creates or retitles, under If-None-Match: * and If-Match; `patch_list` retitles under If-Match;
 * `remove_list` deletes the list's tasks, keys and journal, keeps its row as gone with the highest
 * id and change number it reached, and tells every process on the schema's channel.
 */
export function listFunctions(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.list_matches(if_match jsonb, version text) RETURNS boolean
    LANGUAGE sql IMMUTABLE AS $fn$
      SELECT if_match IS NULL OR if_match = '"*"'::jsonb OR (jsonb_typeof(if_match) = 'array' AND if_match ? version)
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.made_list(list_name text, new_title_json text, max_lists integer) ${RETURNS}
    DECLARE
      d record;
      new_change bigint;
      new_version text;
    BEGIN
      SELECT * INTO d FROM ${s}.directory WHERE singleton;
      IF d.live_lists >= max_lists THEN
        RETURN QUERY SELECT 'full'::text, NULL::text, NULL::text, NULL::text, NULL::text;
        RETURN;
      END IF;
      new_change := d.change + 1;
      new_version := d.instance || '-l' || new_change;
      UPDATE ${s}.directory SET change = new_change, live_lists = live_lists + 1 WHERE singleton;
      INSERT INTO ${s}.lists AS l (name, title_json, live, position, version, instance, task_count, last_id, json_bytes,
          change_number, forgotten)
        VALUES (list_name, new_title_json, true, new_change, new_version, left(replace(gen_random_uuid()::text, '-', ''), 16),
          0, 0, 2, 0, 0)
        ON CONFLICT (name) DO UPDATE SET title_json = EXCLUDED.title_json, live = true, position = EXCLUDED.position,
          version = EXCLUDED.version, instance = EXCLUDED.instance, task_count = 0, json_bytes = 2,
          change_number = l.change_number + 1, forgotten = l.change_number + 1;
      RETURN QUERY SELECT 'created'::text, list_name, new_title_json, new_version, NULL::text;
    END
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.retitled_list(
      list_name text, old_title_json text, old_version text, new_title_json text
    ) ${RETURNS}
    DECLARE
      new_version text;
    BEGIN
      IF old_title_json = new_title_json THEN
        RETURN QUERY SELECT 'unchanged'::text, list_name, old_title_json, old_version, NULL::text;
        RETURN;
      END IF;
      UPDATE ${s}.directory SET change = change + 1 WHERE singleton RETURNING instance || '-l' || change
        INTO new_version;
      UPDATE ${s}.lists SET title_json = new_title_json, version = new_version WHERE name = list_name;
      RETURN QUERY SELECT 'retitled'::text, list_name, new_title_json, new_version, NULL::text;
    END
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.create_list(
      list_name text, new_title_json text, max_lists integer, key_scope text, key_value text, key_fingerprint text,
      max_keys integer
    ) ${RETURNS}
    DECLARE
      known record;
      made record;
    BEGIN
      PERFORM FROM ${s}.directory WHERE singleton FOR UPDATE;
      IF key_value IS NOT NULL THEN
        SELECT k.fingerprint = key_fingerprint AS same, k.list_json INTO known
          FROM ${s}.list_keys k WHERE k.scope = key_scope AND k.key = key_value;
        IF FOUND THEN
          RETURN QUERY SELECT CASE WHEN known.same THEN 'replayed' ELSE 'key-reused' END, NULL::text, NULL::text,
            NULL::text, known.list_json;
          RETURN;
        END IF;
      END IF;
      PERFORM FROM ${s}.directory WHERE singleton AND live_lists >= max_lists;
      IF NOT FOUND THEN
        PERFORM FROM ${s}.lists WHERE name = list_name;
        IF FOUND THEN
          RETURN QUERY SELECT 'taken'::text, NULL::text, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
      END IF;
      SELECT * INTO made FROM ${s}.made_list(list_name, new_title_json, max_lists);
      IF made.outcome = 'created' AND key_value IS NOT NULL THEN
        INSERT INTO ${s}.list_keys (scope, key, fingerprint, list_json)
          VALUES (key_scope, key_value, key_fingerprint, '{"name":"' || list_name || '","title":' || new_title_json || '}');
        DELETE FROM ${s}.list_keys k WHERE k.seq IN (
          SELECT o.seq FROM ${s}.list_keys o WHERE o.scope = key_scope ORDER BY o.seq DESC OFFSET max_keys
        );
      END IF;
      RETURN QUERY SELECT made.outcome, made.name, made.title_json, made.version, NULL::text;
    END
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.put_list(
      list_name text, new_title_json text, if_match jsonb, if_none_match boolean, max_lists integer
    ) ${RETURNS}
    DECLARE
      l record;
    BEGIN
      PERFORM FROM ${s}.directory WHERE singleton FOR UPDATE;
      SELECT * INTO l FROM ${s}.lists WHERE name = list_name FOR UPDATE;
      IF NOT FOUND OR NOT l.live THEN
        IF if_match IS NOT NULL THEN
          RETURN QUERY SELECT 'precondition-failed'::text, NULL::text, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        RETURN QUERY SELECT * FROM ${s}.made_list(list_name, new_title_json, max_lists);
        RETURN;
      END IF;
      IF if_none_match OR NOT ${s}.list_matches(if_match, l.version) THEN
        RETURN QUERY SELECT 'precondition-failed'::text, NULL::text, NULL::text, NULL::text, NULL::text;
        RETURN;
      END IF;
      RETURN QUERY SELECT * FROM ${s}.retitled_list(list_name, l.title_json, l.version, new_title_json);
    END
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.patch_list(list_name text, new_title_json text, if_match jsonb) ${RETURNS}
    DECLARE
      l record;
    BEGIN
      PERFORM FROM ${s}.directory WHERE singleton FOR UPDATE;
      SELECT * INTO l FROM ${s}.lists WHERE name = list_name FOR UPDATE;
      IF NOT FOUND OR NOT l.live THEN
        RETURN QUERY SELECT CASE WHEN FOUND THEN 'gone' ELSE 'not-found' END, NULL::text, NULL::text, NULL::text,
          NULL::text;
        RETURN;
      END IF;
      IF NOT ${s}.list_matches(if_match, l.version) THEN
        RETURN QUERY SELECT 'precondition-failed'::text, NULL::text, NULL::text, NULL::text, NULL::text;
        RETURN;
      END IF;
      IF new_title_json IS NULL THEN
        RETURN QUERY SELECT 'unchanged'::text, l.name, l.title_json, l.version, NULL::text;
        RETURN;
      END IF;
      RETURN QUERY SELECT * FROM ${s}.retitled_list(list_name, l.title_json, l.version, new_title_json);
    END
    $fn$;
    CREATE OR REPLACE FUNCTION ${s}.remove_list(list_name text, if_match jsonb, channel text) ${RETURNS}
    DECLARE
      l record;
    BEGIN
      PERFORM FROM ${s}.directory WHERE singleton FOR UPDATE;
      SELECT * INTO l FROM ${s}.lists WHERE name = list_name FOR UPDATE;
      IF NOT FOUND OR NOT l.live THEN
        RETURN QUERY SELECT CASE WHEN FOUND THEN 'gone' ELSE 'not-found' END, NULL::text, NULL::text, NULL::text,
          NULL::text;
        RETURN;
      END IF;
      IF list_name = 'default' THEN
        RETURN QUERY SELECT 'default-kept'::text, NULL::text, NULL::text, NULL::text, NULL::text;
        RETURN;
      END IF;
      IF NOT ${s}.list_matches(if_match, l.version) THEN
        RETURN QUERY SELECT 'precondition-failed'::text, NULL::text, NULL::text, NULL::text, NULL::text;
        RETURN;
      END IF;
      DELETE FROM ${s}.tasks WHERE list = list_name;
      DELETE FROM ${s}.deletions WHERE list = list_name;
      DELETE FROM ${s}.journal WHERE list = list_name;
      DELETE FROM ${s}.idempotency_keys WHERE list = list_name;
      DELETE FROM ${s}.idempotency_scopes WHERE list = list_name;
      UPDATE ${s}.lists SET live = false, task_count = 0, json_bytes = 2 WHERE name = list_name;
      UPDATE ${s}.directory SET change = change + 1, live_lists = live_lists - 1 WHERE singleton;
      -- Wakes every process following the list: it reads the list gone.
      PERFORM pg_notify(channel, list_name);
      RETURN QUERY SELECT 'deleted'::text, list_name, NULL::text, NULL::text, NULL::text;
    END
    $fn$;`;
}
