// The function an operator calls after restoring a PostgreSQL list from a dump: the list starts a
// new history, as a SQLite list put back from a copy does (see sqlite-copies.ts).
import { CHANGES_PER_MS, NEW_HISTORY } from "../new-history.ts";

/**
 * `SELECT <schema>.restored()`: gives the list a new instance, so that every ETag from before stops
 * matching, and makes each task again by a change past any the list gave (in id order, from the
 * clock's milliseconds times {@link CHANGES_PER_MS}), forgetting the deletions and with them every
 * cursor from before. Its ids and Idempotency-Keys stay. Each process hears of it on the list's
 * channel and reads the list again.
 */
export function restoredFunction(s: string, schema: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.restored() RETURNS text LANGUAGE plpgsql AS $fn$
    DECLARE
      l record;
      start bigint;
    BEGIN
      SELECT * INTO l FROM ${s}.list WHERE singleton FOR UPDATE;
      start := greatest(l.change_number + 1,
        floor(extract(epoch FROM clock_timestamp()) * ${1000 * CHANGES_PER_MS})::bigint);
      UPDATE ${s}.tasks SET created = start + id, changed = start + id;
      DELETE FROM ${s}.deletions;
      -- The journal's changes are of the old history: a reader of the new one starts after them.
      DELETE FROM ${s}.journal;
      UPDATE ${s}.list SET instance = left(replace(gen_random_uuid()::text, '-', ''), 16),
          change_number = start + last_id, forgotten = start
        WHERE singleton;
      PERFORM pg_notify('${schema}', (start + l.last_id)::text);
      RETURN 'Schema ${schema} restored: ${NEW_HISTORY}';
    END
    $fn$;`;
}
