// Restores a list from a copy, before it is served again, and starts it on a new history, so that
// no ETag or cursor a client kept from the list as it went on after the copy means anything in it
// (docs/operating.md, "Backups"):
//   npm run restore -- <copy path> <sqlite path>   puts a copy of a SQLite list in place, its server stopped
//   npm run restore -- <sqlite path>               a SQLite file put back some other way
//   npm run restore                                with DATABASE_URL (and DATABASE_SCHEMA): a PostgreSQL list restored from a dump
import { existsSync, renameSync, rmSync } from "node:fs";
import postgres from "postgres";
import { NEW_HISTORY } from "../src/engine/new-history.ts";
import { describeError } from "../src/store/postgres/postgres-database.ts";
import { PostgresLists } from "../src/store/postgres/postgres-lists.ts";
import { hideDatabasePassword, parsePostgresServerConfig } from "../src/store/postgres/settings.ts";
import { openSqliteDatabase } from "../src/store/sqlite/sqlite-list.ts";
import { openListFile, runScript } from "./sqlite-file.ts";

const USAGE =
  "Usage: npm run restore -- <copy path> <sqlite path>, or npm run restore -- <sqlite path> for a file put back already, or npm run restore with DATABASE_URL (and DATABASE_SCHEMA) set for PostgreSQL";

await runScript(async () => {
  const args = process.argv.slice(2);
  if (args.length === 2) {
    const [copy = "", path = ""] = args;
    putBack(copy, path);
    return startNewHistory(path);
  }
  if (args.length === 1) return startNewHistory(args[0] ?? "");
  if (process.env.DATABASE_URL === undefined) throw new Error(USAGE);
  return restorePostgres();
});

/**
 * Puts the list in the SQLite file `copy` at `path`, in place of the list there and of its
 * write-ahead log: SQLite would replay the log of the list replaced onto the copy.
 */
function putBack(copy: string, path: string): void {
  // Refused while a server holds the list; closing it takes what its log holds into the file, and removes the log.
  if (existsSync(path)) openListFile(path).close();
  const source = openListFile(copy);
  const restoring = `${path}.restoring`;
  rmSync(restoring, { force: true });
  try {
    // Whole and consistent, with what the copy's own log holds: a copy made with its log beside it counts.
    source.query("VACUUM INTO ?", restoring);
  } finally {
    source.close();
  }
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  renameSync(restoring, path);
}

/** Starts the list in the SQLite file at `path` on a new history. */
function startNewHistory(path: string): string {
  const db = openListFile(path);
  try {
    openSqliteDatabase(db, { restored: true });
  } finally {
    db.close();
  }
  return `${JSON.stringify(path)} restored: ${NEW_HISTORY}`;
}

/** Starts the PostgreSQL list DATABASE_URL and DATABASE_SCHEMA name on a new history. */
async function restorePostgres(): Promise<string> {
  const config = parsePostgresServerConfig(process.env);
  const sql = postgres(config.url, { max: 1, onnotice: () => {}, fetch_types: false });
  try {
    return await new PostgresLists((work) => work(sql), config.schema, { pollMs: 1_000 }).restored();
  } catch (error) {
    throw new Error(hideDatabasePassword(describeError(error), config.url));
  } finally {
    await sql.end({ timeout: 5 });
  }
}
