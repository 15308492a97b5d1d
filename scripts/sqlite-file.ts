// Opening a SQLite list's file from a script, as its server would: only a file that is there, and
// never one a running server holds.
import { existsSync } from "node:fs";
import type { SqliteFileConnection } from "../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../src/store/sqlite/node-driver.ts";

/** Opens the database file at `path` for itself; throws, saying what to do, when it is missing or a server holds it. */
export function openListFile(path: string): SqliteFileConnection {
  if (!existsSync(path)) throw new Error(`No file at ${JSON.stringify(path)}: give the path of the list's SQLite file`);
  try {
    return openNodeSqlite(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (/locked/i.test(reason)) {
      throw new Error(`A running server holds ${JSON.stringify(path)}: stop it, then run this again`);
    }
    throw new Error(`${JSON.stringify(path)} cannot be opened as a SQLite database: ${reason}`);
  }
}

/** Runs a script's work, printing its error on one line and exiting with 1 when it fails. */
export async function runScript(work: () => Promise<string> | string): Promise<void> {
  try {
    console.log(await work());
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
