import { waitUntil } from "cloudflare:workers";
import postgres from "postgres";
import { ConfigError, type EnvRecord } from "../config.ts";
import { logEvent } from "../request-log.ts";
import { parseWorkerPostgresConfig } from "./config.ts";
import { PostgresStore } from "./postgres.ts";
import { type ListLimits, overLimitWarning, type TaskStore } from "./store.ts";

declare global {
  namespace Cloudflare {
    interface Env {
      /** The list's database through Hyperdrive; bound in the `postgres` environment of wrangler.toml only. */
      readonly TASK_DB?: Hyperdrive;
    }
  }
}

/**
 * The store for `TASK_STORE=postgres` on Workers: the list in the schema DATABASE_SCHEMA names,
 * reached through the TASK_DB Hyperdrive binding. A Worker cannot reuse a connection across
 * requests, so each operation gets a client of its own, which Hyperdrive's pool makes cheap, and
 * closes it after the answer. The isolate keeps its copy of the list across requests, so an
 * unchanged list costs one small query. The first operation of each isolate says whether the list
 * is already past `limits`. Throws {@link ConfigError} without the binding or with a bad setting.
 */
export function postgresWorkerStore(env: EnvRecord, binding: Hyperdrive | undefined, limits: ListLimits): TaskStore {
  if (binding === undefined) {
    throw new ConfigError(
      "TASK_STORE is postgres but the TASK_DB Hyperdrive binding is missing: run or deploy with --env postgres, or bind TASK_DB to a Hyperdrive configuration in wrangler.toml",
    );
  }
  const { schema } = parseWorkerPostgresConfig(env);
  const warnOverLimit = (usage: { tasks: number; bytes: number }) => {
    const warning = overLimitWarning(usage, limits);
    if (warning !== undefined) console.warn(logEvent("warn", warning));
  };
  return new PostgresStore(
    async (work) => {
      // One connection: an operation's queries follow one another. No array types to look up.
      const sql = postgres(binding.connectionString, {
        max: 1,
        fetch_types: false,
        connect_timeout: 5,
        onnotice: () => {},
      });
      try {
        return await work(sql);
      } finally {
        waitUntil(sql.end({ timeout: 5 }));
      }
    },
    schema,
    warnOverLimit,
  );
}
