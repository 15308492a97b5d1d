// PostgreSQL's settings: DATABASE_URL, DATABASE_SCHEMA and DATABASE_POOL_SIZE, read and checked,
// and the URL's password kept out of every message.
import { type EnvRecord, parseCount, read } from "../../config.ts";
import { ConfigError } from "../../errors.ts";

/** Which list of a PostgreSQL database a deployment keeps. */
export interface PostgresListConfig {
  /** The schema that holds the list's tables; a safe SQL identifier. */
  readonly schema: string;
}

/** What a Node, Bun or Deno server needs to reach its list in PostgreSQL. */
export interface PostgresServerConfig extends PostgresListConfig {
  readonly url: string;
  readonly poolSize: number;
}

/** The schema that holds the list when DATABASE_SCHEMA is unset. */
export const DEFAULT_POSTGRES_SCHEMA = "task_list";
/**
 * Connections a server's pool opens at most when DATABASE_POOL_SIZE is unset: postgres.js's own
 * default. Appends queue on the list's row whatever the pool, so more mostly costs the database.
 */
export const DEFAULT_POOL_SIZE = 10;
const MAX_POOL_SIZE = 100;
const URL_EXAMPLE = "postgres://user:password@host:5432/database";

/** Reads DATABASE_URL, DATABASE_SCHEMA and DATABASE_POOL_SIZE for a Node, Bun or Deno server. */
export function parsePostgresServerConfig(env: EnvRecord): PostgresServerConfig {
  return {
    url: parseDatabaseUrl(env),
    schema: parsePostgresSchema(env),
    poolSize: parseCount(env, "DATABASE_POOL_SIZE", DEFAULT_POOL_SIZE, 1, MAX_POOL_SIZE),
  };
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
  const problem = urlProblem(url);
  if (problem !== undefined) {
    throw new ConfigError(
      `DATABASE_URL must be a URL such as ${URL_EXAMPLE} with its user name and password percent-encoded (% as %25, @ as %40, : as %3A, / as %2F), but ${problem}`,
    );
  }
  return url;
}

/**
 * What the driver could not read in `url`, told without showing any of it, or undefined. It reads
 * the parts as postgres.js does: the hosts after the first `@` (a comma-separated list, of which
 * the URL parser sees the first), then the user name and password, each percent-decoded.
 */
function urlProblem(url: string): string | undefined {
  const authority = url.slice(url.indexOf("://") + 3).split(/[?/]/)[0] ?? "";
  const hosts = authority.slice(authority.indexOf("@") + 1);
  if (!decodes(hosts)) return "its host is not valid percent-encoding";
  let parsed: URL;
  try {
    parsed = new URL(url.replace(hosts, hosts.split(",")[0] ?? ""));
  } catch {
    return "it cannot be read as a URL: check its host, and its port (a number up to 65535)";
  }
  if (!decodes(parsed.username)) return "its user name is not valid percent-encoding";
  if (!decodes(parsed.password)) return "its password is not valid percent-encoding";
  return undefined;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads DATABASE_SCHEMA: lowercase, so it reads the same quoted or not, and never a system
 * schema's name. It goes into SQL as an identifier, which only such a name makes safe.
 */
export function parsePostgresSchema(env: EnvRecord): string {
  const schema = read(env, "DATABASE_SCHEMA") ?? DEFAULT_POSTGRES_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema) || schema.startsWith("pg_") || schema === "information_schema") {
    throw new ConfigError(
      `DATABASE_SCHEMA must be a schema name of 1 to 63 lowercase letters, digits and underscores, starting with a letter or underscore, and neither pg_ at its start nor information_schema, got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}
