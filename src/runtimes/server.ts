// What Node, Bun and Deno share before they listen: settings, the store, and the app; and how
// they stop.
import { createHash } from "node:crypto";
import { type AppOptions, createApp, type TaskApp } from "../app.ts";
import { type EnvRecord, type ListenConfig, logShows, parseAppConfig, parseListenConfig } from "../config.ts";
import { ConfigError } from "../errors.ts";
import { type LogSink, logEvent } from "../http/request-log.ts";
import { openServerStore } from "../store/kinds.ts";
import type { OpenSqliteFile } from "../store/sqlite/file-store.ts";
import type { TimeRules } from "../time-rules.ts";

/**
 * How long a stopping server waits for the responses it is still sending (a subscriber that does not
 * read may never take the end of its stream) before it exits anyway.
 */
const STOP_GRACE_MS = 5_000;

/** What a runtime adds to the app: see the options of the same names in `createApp`. */
type RuntimeAppOptions = Pick<AppOptions, "textBodies" | "parsedHeaders" | "upgradeWebSocket">;

/** A server's app, where it listens, its time rules, and how it stops. */
export interface ServerApp {
  readonly app: TaskApp;
  readonly listen: ListenConfig;
  /** For the runtime's own time limits, which the tests shorten with the app's (TIME_SCALE). */
  readonly timeRules: TimeRules;
  /**
   * Ends every subscription, then waits for `closeServer` (the runtime's own graceful close) at
   * most {@link STOP_GRACE_MS}: a server with subscribers would otherwise never stop.
   */
  readonly stop: (closeServer: () => Promise<unknown>) => Promise<void>;
}

/**
 * Validates the settings, opens the store (which may connect to a database) and builds the app,
 * with the runtime's `options` (made from the time rules, for a runtime whose upgrade needs them).
 * Rejects with a ConfigError on a bad setting or a store that cannot be opened.
 */
export async function createServerApp(
  env: EnvRecord,
  openSqlite: OpenSqliteFile,
  logSink: LogSink,
  options: RuntimeAppOptions | ((timeRules: TimeRules) => RuntimeAppOptions) = {},
): Promise<ServerApp> {
  const listen = parseListenConfig(env);
  const config = parseAppConfig(env);
  const runtime = typeof options === "function" ? options(config.timeRules) : options;
  // What a store says of itself (a SQLite file gone), at the levels LOG_LEVEL shows.
  const log = (level: "error" | "info", message: string) => {
    if (logShows(config.logLevel, level))
      (level === "error" ? logSink.error : logSink.log).call(logSink, logEvent(level, message));
  };
  const { lists, whereListsLive } = await openServerStore(env, { openSqlite, log });
  log("info", whereListsLive);
  const closing = new AbortController();
  const app = createApp({ lists, config, logSink, closing: closing.signal, sha256, ...runtime });
  const stop = async (closeServer: () => Promise<unknown>) => {
    closing.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise((done) => {
      timer = setTimeout(done, STOP_GRACE_MS);
    });
    await Promise.race([closeServer(), grace]);
    clearTimeout(timer);
  };
  return { app, listen, timeRules: config.timeRules, stop };
}

/**
 * {@link createServerApp} for an entry: a setting that cannot be used ends the process with exit
 * status 1 and its message as the one line on standard error, not as an uncaught error's stack.
 */
export async function startServerApp(...args: Parameters<typeof createServerApp>): Promise<ServerApp> {
  try {
    return await createServerApp(...args);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** SHA-256 in hex, at once: Node, Bun and Deno all have node:crypto, 20 times cheaper than Web Crypto's. */
function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
