// The statement that starts every list in PostgreSQL on a new history after a restore from a dump.
import { CHANGES_PER_MS } from "../../engine/new-history.ts";

/**
 * Gives each list (a deleted one too, for when its name is made again) a new instance, so that
 * every ETag from before stops matching, and makes each task again by a change past any the list
 * gave (in id order, from the clock's milliseconds times {@link CHANGES_PER_MS}), forgetting the
 * deletions and the journal, and with them every cursor from before. Ids and Idempotency-Keys stay.
 * Each process hears of each list on channel `schema` and reads it again. One statement, so one
 * transaction without opening one; its row's `restored` is false, and nothing was written, when a
 * list changed between its snapshot and its lock: then it is run again.
 */
export function restoreStatement(s: string, schema: string): string {
  // Every sub-statement reads the snapshot taken as the statement began, but a list's row locked
  // after waiting on a write is read as that write left it, and the write's new tasks, deletions
  // and journal rows would be missed: unless each locked row is the one the snapshot holds, none
  // is written.
  return `WITH seen AS (
  SELECT name, xmin::text AS row_version FROM ${s}.lists
), locked AS (
  SELECT name, xmin::text AS row_version,
    greatest(change_number + 1, floor(extract(epoch FROM clock_timestamp()) * ${1000 * CHANGES_PER_MS})::bigint) AS start
  FROM ${s}.lists ORDER BY name FOR UPDATE
), unchanged AS (
  SELECT NOT EXISTS (SELECT FROM locked JOIN seen USING (name) WHERE locked.row_version <> seen.row_version) AS held
), restarted AS (
  SELECT locked.name, locked.start FROM locked, unchanged WHERE unchanged.held
), tasks AS (
  UPDATE ${s}.tasks t SET created = r.start + t.id, changed = r.start + t.id FROM restarted r WHERE t.list = r.name
), deletions AS (
  DELETE FROM ${s}.deletions d USING restarted r WHERE d.list = r.name
), journal AS (
  -- The journal's changes are of the old history: a reader of the new one starts after them.
  DELETE FROM ${s}.journal j USING restarted r WHERE j.list = r.name
), lists AS (
  UPDATE ${s}.lists l SET instance = left(replace(gen_random_uuid()::text, '-', ''), 16),
      change_number = r.start + l.last_id, forgotten = r.start
    FROM restarted r WHERE l.name = r.name RETURNING l.name
)
SELECT held AS restored,
  (SELECT count(pg_notify('${schema}', name)) FROM (SELECT name FROM lists ORDER BY name) named) AS notified
FROM unchanged`;
}
