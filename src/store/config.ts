import { ConfigError, type EnvRecord, parseChoice, parseCount, read } from "../config.ts";

/** Where a Node, Bun or Deno server keeps the list. */
export type ServerStoreConfig =
  | { readonly kind: "memory" }
  | { readonly kind: "sqlite"; readonly path: string }
  | ({ readonly kind: "postgres"; readonly url: string; readonly poolSize: number } & PostgresListConfig);

/** Which list of a PostgreSQL database a deployment keeps. */
export interface PostgresListConfig {
  /** The schema that holds the list's tables; a safe SQL identifier. */
  readonly schema: string;
}

/** Where a Worker keeps the list. */
export type WorkerStoreKind = "memory" | "durable" | "postgres";

/** The database file a SQLite store uses when SQLITE_PATH is unset, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = "tasks.db";
/** The schema that holds the list when DATABASE_SCHEMA is unset. */
export const DEFAULT_POSTGRES_SCHEMA = "task_list";
/**
 * Connections a server's pool opens at most when DATABASE_POOL_SIZE is unset: postgres.js's own
 * default. Appends queue on the list's row whatever the pool, so more mostly costs the database.
 */
export const DEFAULT_POOL_SIZE = 10;
const MAX_POOL_SIZE = 100;
const URL_EXAMPLE = "postgres://user:password@host:5432/database";

/** The settings each store reads, so that one set for another store is never ignored silently. */
const STORE_SETTINGS = {
  sqlite: { names: ["SQLITE_PATH"], where: (env: EnvRecord) => `in ${JSON.stringify(read(env, "SQLITE_PATH"))}` },
  postgres: { names: ["DATABASE_URL", "DATABASE_SCHEMA", "DATABASE_POOL_SIZE"], where: () => "in PostgreSQL" },
} as const;

/**
 * Reads `TASK_STORE` (memory, sqlite or postgres) and the settings of the store it names; throws
 * {@link ConfigError} on a bad value, and on a setting of another store, which the user expects to
 * keep the list and must never be dropped silently.
 */
export function parseServerStoreConfig(env: EnvRecord): ServerStoreConfig {
  const kind = parseChoice(env, "TASK_STORE", ["memory", "sqlite", "postgres"]);
  refuseOtherStores(env, kind, ["sqlite", "postgres"]);
  if (kind === "sqlite") return { kind, path: read(env, "SQLITE_PATH") ?? DEFAULT_SQLITE_PATH };
  if (kind === "postgres") {
    return {
      kind,
      url: parseDatabaseUrl(env),
      schema: parsePostgresSchema(env),
      poolSize: parseCount(env, "DATABASE_POOL_SIZE", DEFAULT_POOL_SIZE, 1, MAX_POOL_SIZE),
    };
  }
  return { kind };
}

/**
 * Reads `TASK_STORE` for a Worker (memory, durable or postgres); throws {@link ConfigError} on a
 * bad value. A Worker reaches PostgreSQL through the TASK_DB Hyperdrive binding, which also pools
 * the connections, so DATABASE_URL and DATABASE_POOL_SIZE are refused rather than ignored.
 */
export function parseWorkerStoreKind(env: EnvRecord): WorkerStoreKind {
  const kind = parseChoice(env, "TASK_STORE", ["memory", "durable", "postgres"]);
  for (const [name, instead] of [
    ["DATABASE_URL", "the database is reached through the TASK_DB Hyperdrive binding, so bind TASK_DB"],
    ["DATABASE_POOL_SIZE", "Hyperdrive pools the connections"],
  ] as const) {
    if (read(env, name) !== undefined) {
      throw new ConfigError(`${name} is not read on Workers: ${instead} and unset ${name}`);
    }
  }
  refuseOtherStores(env, kind, ["postgres"]);
  return kind;
}

/** Reads which list of the database a Worker keeps: DATABASE_SCHEMA. */
export function parseWorkerPostgresConfig(env: EnvRecord): PostgresListConfig {
  return { schema: parsePostgresSchema(env) };
}

/**
 * The URL with its password, in the authority or in the query, replaced by `***`, fit for a log
 * or an error message. The authority ends at the last `@` before the query, so a password with
 * an unencoded `@` or `/` is hidden whole.
 */
export function redactDatabaseUrl(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return "(a value that is not a URL)";
  const hiddenQuery = url.replace(/([?&]password=)[^&#]*/gi, "$1***");
  const parts = splitAtPassword(hiddenQuery);
  return parts === undefined ? hiddenQuery : `${parts.before}***${parts.after}`;
}

/** `text` with every password `url` holds replaced by `***`, as written and decoded. */
export function hideDatabasePassword(text: string, url: string): string {
  const passwords = [splitAtPassword(url)?.password, /[?&]password=([^&#]*)/i.exec(url)?.[1]];
  let hidden = text;
  for (const password of passwords) {
    if (password === undefined || password === "") continue;
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // A password that is not percent-encoded is hidden as written.
    }
    hidden = hidden.replaceAll(password, "***").replaceAll(decoded, "***");
  }
  return hidden;
}

/** A URL cut around the password of its authority, when it has one. */
function splitAtPassword(url: string): { before: string; password: string; after: string } | undefined {
  const [, scheme = "", rest = ""] = /^([a-z][a-z0-9+.-]*:\/\/)(.*)$/is.exec(url) ?? [];
  const queryAt = rest.search(/[?#]/);
  const at = rest.lastIndexOf("@", queryAt === -1 ? undefined : queryAt);
  const colon = at === -1 ? -1 : rest.slice(0, at).indexOf(":");
  if (colon === -1) return undefined;
  return { before: `${scheme}${rest.slice(0, colon + 1)}`, password: rest.slice(colon + 1, at), after: rest.slice(at) };
}

function parseDatabaseUrl(env: EnvRecord): string {
  const url = read(env, "DATABASE_URL");
  if (url === undefined) {
    throw new ConfigError(`DATABASE_URL must be set when TASK_STORE is postgres: a URL such as ${URL_EXAMPLE}`);
  }
  // The value is never shown: what is not a URL may be a password pasted in the wrong place.
  if (!/^postgres(ql)?:\/\/[^/?#]/i.test(url)) {
    throw new ConfigError(
      `DATABASE_URL must be a URL that starts with postgres:// or postgresql://, such as ${URL_EXAMPLE}`,
    );
  }
  return url;
}

/**
 * Reads DATABASE_SCHEMA: lowercase, so it reads the same quoted or not, and never a system
 * schema's name. It goes into SQL as an identifier, which only such a name makes safe.
 */
function parsePostgresSchema(env: EnvRecord): string {
  const schema = read(env, "DATABASE_SCHEMA") ?? DEFAULT_POSTGRES_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema) || schema.startsWith("pg_") || schema === "information_schema") {
    throw new ConfigError(
      `DATABASE_SCHEMA must be a schema name of 1 to 63 lowercase letters, digits and underscores, starting with a letter or underscore, and neither pg_ at its start nor information_schema, got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/** Refuses a setting of one of `stores` when TASK_STORE names another. */
function refuseOtherStores(env: EnvRecord, kind: string, stores: readonly (keyof typeof STORE_SETTINGS)[]): void {
  for (const store of stores) {
    if (store === kind) continue;
    const { names, where } = STORE_SETTINGS[store];
    const name = names.find((n) => read(env, n) !== undefined);
    if (name === undefined) continue;
    throw new ConfigError(
      `${name} is set but TASK_STORE is ${kind}: set TASK_STORE=${store} to keep the list ${where(env)}, or unset ${name}`,
    );
  }
}
