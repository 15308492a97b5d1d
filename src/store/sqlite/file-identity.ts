// Where a SQLite database's files are on disk, so that a server can tell they were deleted, moved
// away or replaced while it runs. Only the drivers load it: it reads the file system.
import { statSync } from "node:fs";

/**
 * The device and inode of the database file at `path` and of its write-ahead log, "-" for one
 * that is not there; "" for a database in memory, which has no file to lose. A missing file is
 * told without an exception, which would cost more than the check.
 */
export function fileIdentity(path: string): string {
  if (path === "" || path === ":memory:") return "";
  return `${identity(path)} ${identity(`${path}-wal`)}`;
}

/** A file this process cannot see (gone, or a directory on its path replaced or made unreadable) is "-". */
function identity(path: string): string {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats === undefined ? "-" : `${stats.dev}:${stats.ino}`;
  } catch {
    return "-";
  }
}
