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
 * and a PostgreSQL database reached here, at start, so a list that cannot be served stops the
 * server with a {@link ConfigError} naming the variable and the cause, before it takes any request.
 */
export async function createServerStore(
  env: EnvRecord,
  openSqlite: (path: string) => SqliteFileConnection,
): Promise<ServerStore> {
  const config = parseServerStoreConfig(env);
  if (config.kind === "memory") return new MemoryStore();
  // Loaded only when asked for, so that the other stores start without the driver.
  if (config.kind === "postgres") return (await import("./postgres-server.ts")).openPostgresStore(config);
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
