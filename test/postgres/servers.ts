import { stripVTControlCharacters } from "node:util";
import postgres from "postgres";
import type { Runtime, StartOptions } from "../support/server.ts";

/** How to start a server of some runtime on one list of a PostgreSQL database. */
export interface PostgresLaunch {
  /** The service's settings: vars on Workers, the process environment elsewhere. */
  readonly env: Readonly<Record<string, string>>;
  readonly start: StartOptions;
}

/**
 * How a server of `runtime` keeps its list in `schema` of the database at `url`: Node, Bun and
 * Deno from DATABASE_URL; the Worker in its `postgres` environment, its Hyperdrive binding pointed
 * at `url` as wrangler dev's local connection string would.
 */
export function onPostgres(
  runtime: Runtime,
  url: string,
  schema: string,
  env: Readonly<Record<string, string>> = {},
): PostgresLaunch {
  if (runtime === "workerd") {
    return {
      env: { DATABASE_SCHEMA: schema, ...env },
      start: { environment: "postgres", hyperdrive: url },
    };
  }
  return { env: { TASK_STORE: "postgres", DATABASE_URL: url, DATABASE_SCHEMA: schema, ...env }, start: {} };
}

/** Runs `work` with a connection of its own to the database at `url`, as an operator would. */
export async function asOperator<T>(url: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/**
 * The JSON log lines in a server's output that contain `text`, parsed, whatever a runtime prints
 * before them on the line.
 */
export function logLinesWith(output: string, text: string): Record<string, unknown>[] {
  return stripVTControlCharacters(output)
    .split("\n")
    .filter((line) => line.includes(text) && line.includes("{"))
    .map((line) => JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>);
}
