import { ConfigError, type EnvRecord } from "../config.ts";
import { parseServerStoreConfig } from "./config.ts";
import { MemoryStore } from "./memory.ts";
import { type SqliteFileConnection, SqliteStore } from "./sqlite.ts";
import type { ListUsage, TaskStore } from "./store.ts";

/** A store of a Node, Bun or Deno server, which knows how much its list holds from the start. */
export interface ServerStore extends TaskStore {
  readonly usage: ListUsage;
}

/**
 * Builds the store `TASK_STORE` selects for a Node, Bun or Deno server. A SQLite file is opened
 * and initialised here, at start, so a path that cannot serve the list stops the server with a
 * {@link ConfigError} naming SQLITE_PATH and the cause, before it takes any request.
 */
export function createServerStore(env: EnvRecord, openSqlite: (path: string) => SqliteFileConnection): ServerStore {
  const config = parseServerStoreConfig(env);
  if (config.kind === "memory") return new MemoryStore();
  let connection: SqliteFileConnection | undefined;
  try {
    connection = openSqlite(config.path);
    return new SqliteStore(connection);
  } catch (error) {
    // Releases the file's lock, which a database that opened but could not hold the list would keep.
    connection?.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `SQLITE_PATH must name a SQLite database file this process can create, read and write, got ${JSON.stringify(config.path)}: ${reason}`,
      { cause: error },
    );
  }
}
