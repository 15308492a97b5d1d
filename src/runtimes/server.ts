// What Node, Bun and Deno share before they listen: settings, the store, and the app; and how
// they stop.
import { createHash } from "node:crypto";
import { type AppOptions, createApp, type TaskApp } from "../app.ts";
import { type EnvRecord, type ListenConfig, parseAppConfig, parseListenConfig } from "../config.ts";
import { ConfigError } from "../errors.ts";
import { type LogSink, logEvent } from "../http/request-log.ts";
import { openServerStore } from "../store/kinds.ts";
import type { OpenSqliteFile } from "../store/sqlite/file-store.ts";

/**
 * How long a stopping server waits for the responses it is still sending (a subscriber that does not
 * read may never take the end of its stream) before it exits anyway.
 */
const STOP_GRACE_MS = 5_000;

/** A server's app, where it listens, and how it stops. */
export interface ServerApp {
  readonly app: TaskApp;
  readonly listen: ListenConfig;
  /**
   * Ends every subscription, then waits for `closeServer` (the runtime's own graceful close) at
   * most {@link STOP_GRACE_MS}: a server with subscribers would otherwise never stop.
   */
  readonly stop: (closeServer: () => Promise<unknown>) => Promise<void>;
}

/**
 * Validates the settings, opens the store (which may connect to a database) and builds the app.
 * Rejects with a ConfigError on a bad setting or a store that cannot be opened.
 */
export async function createServerApp(
  env: EnvRecord,
  openSqlite: OpenSqliteFile,
  logSink: LogSink,
  options: Pick<AppOptions, "textBodies" | "parsedHeaders" | "upgradeWebSocket"> = {},
): Promise<ServerApp> {
  const listen = parseListenConfig(env);
  const config = parseAppConfig(env);
  // What a store says of itself (a SQLite file gone), at the levels LOG_LEVEL shows.
  const log = (level: "error" | "info", message: string) => {
    const shown = level === "error" ? config.logLevel !== "off" : ["info", "debug"].includes(config.logLevel);
    if (shown) (level === "error" ? logSink.error : logSink.log).call(logSink, logEvent(level, message));
  };
  const store = await openServerStore(env, { openSqlite, log });
  const closing = new AbortController();
  const app = createApp({ store, config, logSink, closing: closing.signal, sha256, ...options });
  const stop = async (closeServer: () => Promise<unknown>) => {
    closing.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise((done) => {
      timer = setTimeout(done, STOP_GRACE_MS);
    });
    await Promise.race([closeServer(), grace]);
    clearTimeout(timer);
  };
  return { app, listen, stop };
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
