// The directory of lists as PostgreSQL's rows hold it, for list-directory.ts to decide from, and the
// rows each of its decisions writes.
import type { Sql } from "postgres";
import { newInstance } from "../../engine/new-history.ts";
import type { DirectoryState, ListRecord, ListResult } from "../../list/list-directory.ts";
import type { DirectoryStatements } from "./directory-sql.ts";
import { PREPARED } from "./postgres-database.ts";

/** The directory as its rows are now: every list and the POST keys, read after its change number. */
export async function directoryState(sql: Sql, statements: DirectoryStatements): Promise<DirectoryState> {
  const [head] = await sql.unsafe(statements.head, [], PREPARED);
  // A list write committed between these reads leaves the change read behind: its write then fails.
  const rows = await sql.unsafe(statements.lists, [], PREPARED);
  const keys = await sql.unsafe(statements.keys, [], PREPARED);
  const lists: ListRecord[] = [];
  const deleted: DirectoryState["deleted"][number][] = [];
  for (const row of rows) {
    const name = String(row.name);
    if (row.live === true) {
      lists.push({ name, title: JSON.parse(String(row.title_json)) as string, version: String(row.version) });
    } else {
      deleted.push({ name, highestId: Number(row.last_id), change: Number(row.change_number) });
    }
  }
  return {
    instance: String(head?.instance),
    change: Number(head?.change),
    lists,
    deleted,
    keys: keys.map((key) => ({
      scope: String(key.scope),
      key: String(key.key),
      fingerprint: String(key.fingerprint),
      json: String(key.list_json),
    })),
  };
}

/**
 * Writes what `result`, decided against the directory at change `at`, changed; false when another
 * list write came first, and nothing was written. A result that changes nothing writes nothing.
 */
export async function writeDirectory(
  sql: Sql,
  statements: DirectoryStatements,
  at: number,
  result: ListResult,
  { maxKeys, channel }: { readonly maxKeys: number; readonly channel: string },
): Promise<boolean> {
  let parameters: unknown[];
  let statement: string;
  if (result.outcome === "created") {
    const { list, resume, key } = result;
    const keyed = key === undefined ? [null, null, null, null] : [key.scope, key.key, key.fingerprint, key.json];
    const made = [list.name, JSON.stringify(list.title), list.version, newInstance(), resume.highestId, resume.change];
    parameters = [at, ...made, ...keyed, maxKeys];
    statement = statements.created;
  } else if (result.outcome === "retitled") {
    parameters = [at, result.list.name, JSON.stringify(result.list.title), result.list.version];
    statement = statements.retitled;
  } else if (result.outcome === "deleted") {
    parameters = [at, result.name, channel];
    statement = statements.deleted;
  } else {
    return true;
  }
  return (await sql.unsafe(statement, parameters as never[], PREPARED)).length > 0;
}
