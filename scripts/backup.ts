// Copies a SQLite list for a backup, its server stopped: `npm run backup -- <sqlite path> <copy path>`.
// The copy is marked as one: a server that opens it once it is put back starts it on a new history
// by itself (docs/operating.md, "Backups").
import { existsSync, renameSync, rmSync } from "node:fs";
import { markCopy } from "../src/store/sqlite/sqlite-copies.ts";
import { openSqliteDatabase } from "../src/store/sqlite/sqlite-list.ts";
import { openListFile, runScript } from "./sqlite-file.ts";

const USAGE = "Usage: npm run backup -- <sqlite path> <copy path>";

await runScript(() => {
  const [path, copy, ...rest] = process.argv.slice(2);
  if (path === undefined || copy === undefined || rest.length > 0) throw new Error(USAGE);
  if (existsSync(copy)) throw new Error(`${JSON.stringify(copy)} exists already: name a new file for the copy`);
  // Made aside and renamed once marked: a copy at `copy` is always whole, and always marked.
  const partial = `${copy}.partial`;
  rmSync(partial, { force: true });
  const db = openListFile(path);
  try {
    db.query("VACUUM INTO ?", partial);
  } finally {
    db.close();
  }
  const copied = openListFile(partial);
  try {
    // Brings a copy of a file of an older version up to date, as its server would.
    openSqliteDatabase(copied);
    markCopy(copied);
  } finally {
    copied.close();
  }
  renameSync(partial, copy);
  return `Copied ${JSON.stringify(path)} to ${JSON.stringify(copy)}: put back in its place, the copy starts a new history when its server starts`;
});
