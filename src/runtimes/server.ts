import { createApp, type TaskApp } from "../app.ts";
import { type EnvRecord, type ListenConfig, listLimits, parseAppConfig, parseListenConfig } from "../config.ts";
import type { DutyOptions } from "../request-duties.ts";
import { type LogSink, logEvent } from "../request-log.ts";
import { createServerStore } from "../store/server-store.ts";
import type { SqliteFileConnection } from "../store/sqlite.ts";
import { overLimitWarning } from "../store/store.ts";

/**
 * What Node, Bun and Deno do before they listen: validate the settings, open the store (which may
 * connect to a database), say once if the list it holds is already past a limit, and build the
 * app. Rejects with a ConfigError on a bad setting.
 */
export async function createServerApp(
  env: EnvRecord,
  openSqlite: (path: string) => SqliteFileConnection,
  logSink: LogSink,
  duties: DutyOptions = {},
): Promise<{ readonly app: TaskApp; readonly listen: ListenConfig }> {
  const listen = parseListenConfig(env);
  const config = parseAppConfig(env);
  const store = await createServerStore(env, openSqlite);
  const warning = overLimitWarning(store.usage, listLimits(config));
  if (warning !== undefined) logSink.log(logEvent("warn", warning));
  return { app: createApp({ store, config, logSink, duties }), listen };
}
