import { ConfigError, type EnvRecord, parseChoice, read } from "../config.ts";

/** Where a Node, Bun or Deno server keeps the list. */
export type ServerStoreConfig = { readonly kind: "memory" } | { readonly kind: "sqlite"; readonly path: string };

/** Where a Worker keeps the list. */
export type WorkerStoreKind = "memory" | "durable";

/** The database file a SQLite store uses when SQLITE_PATH is unset, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = "tasks.db";

/** Reads `TASK_STORE` (memory or sqlite) and `SQLITE_PATH`; throws {@link ConfigError} on a bad value. */
export function parseServerStoreConfig(env: EnvRecord): ServerStoreConfig {
  const kind = parseChoice(env, "TASK_STORE", ["memory", "sqlite"]);
  const path = read(env, "SQLITE_PATH");
  if (kind === "sqlite") return { kind, path: path ?? DEFAULT_SQLITE_PATH };
  // A path given without TASK_STORE=sqlite is a list the user expects to keep: never drop it silently.
  if (path !== undefined) {
    throw new ConfigError(
      `SQLITE_PATH is set but TASK_STORE is memory: set TASK_STORE=sqlite to keep the list in ${JSON.stringify(path)}, or unset SQLITE_PATH`,
    );
  }
  return { kind };
}

/** Reads `TASK_STORE` for a Worker (memory or durable); throws {@link ConfigError} on a bad value. */
export function parseWorkerStoreKind(env: EnvRecord): WorkerStoreKind {
  return parseChoice(env, "TASK_STORE", ["memory", "durable"]);
}
