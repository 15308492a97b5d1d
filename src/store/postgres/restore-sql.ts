// The function an operator calls after restoring PostgreSQL's lists from a dump: each list starts a
// new history, as a SQLite list put back from a copy does (see sqlite-copies.ts).
import { CHANGES_PER_MS, NEW_HISTORY } from "../../engine/new-history.ts";

/**
 * `SELECT <schema>.restored()`: gives each list (a deleted one too, for when its name is made
 * again) a new instance, so that every ETag from before
 * stops matching, and makes each task again by a change past any the list gave (in id order, from
 * the clock's milliseconds times {@link CHANGES_PER_MS}), forgetting the deletions and with them
 * every cursor from before. Ids and Idempotency-Keys stay. Each process hears of each list on the
 * schema's channel and reads it again.
 */
export function restoredFunction(s: string, schema: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.restored() RETURNS text LANGUAGE plpgsql AS $fn$
    DECLARE
      l record;
      start bigint;
    BEGIN
      FOR l IN SELECT * FROM ${s}.lists ORDER BY name FOR UPDATE LOOP
        start := greatest(l.change_number + 1,
          floor(extract(epoch FROM clock_timestamp()) * ${1000 * CHANGES_PER_MS})::bigint);
        UPDATE ${s}.tasks SET created = start + id, changed = start + id WHERE list = l.name;
        DELETE FROM ${s}.deletions WHERE list = l.name;
        -- The journal's changes are of the old history: a reader of the new one starts after them.
        DELETE FROM ${s}.journal WHERE list = l.name;
        UPDATE ${s}.lists SET instance = left(replace(gen_random_uuid()::text, '-', ''), 16),
            change_number = start + last_id, forgotten = start
          WHERE name = l.name;
        PERFORM pg_notify('${schema}', l.name);
      END LOOP;
      RETURN 'Schema ${schema} restored: ${NEW_HISTORY}';
    END
    $fn$;`;
}
