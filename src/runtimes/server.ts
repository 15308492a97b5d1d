// What Node, Bun and Deno share before they listen: settings, the store, and the app.
import { type AppOptions, createApp, type TaskApp } from "../app.ts";
import { type EnvRecord, type ListenConfig, parseAppConfig, parseListenConfig } from "../config.ts";
import type { LogSink } from "../http/request-log.ts";
import { openServerStore } from "../store/kinds.ts";
import type { OpenSqliteFile } from "../store/sqlite/file-store.ts";

/**
 * Validates the settings, opens the store (which may connect to a database) and builds the app.
 * Rejects with a ConfigError on a bad setting or a store that cannot be opened.
 */
export async function createServerApp(
  env: EnvRecord,
  openSqlite: OpenSqliteFile,
  logSink: LogSink,
  options: Pick<AppOptions, "textBodies" | "parsedHeaders" | "upgradeWebSocket"> = {},
): Promise<{ readonly app: TaskApp; readonly listen: ListenConfig }> {
  const listen = parseListenConfig(env);
  const config = parseAppConfig(env);
  const store = await openServerStore(env, { openSqlite });
  return { app: createApp({ store, config, logSink, ...options }), listen };
}
