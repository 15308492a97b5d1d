// The one place that knows the stores: which TASK_STORE values each runtime takes, the settings
// each store reads, and how each is opened. Adding a store means adding a row here.
import { type EnvRecord, parseChoice, read } from "../config.ts";
import { HeldLists } from "../engine/held-lists.ts";
import type { RequestWork } from "../engine/request-work.ts";
import type { TaskLists } from "../engine/task-store.ts";
import { ConfigError } from "../errors.ts";
import { type DirectoryNamespace, DurableLists } from "./durable-object/durable-lists.ts";
import type { ListObjectNamespace } from "./durable-object/list-object-rpc.ts";
import type { HyperdriveBinding } from "./postgres/hyperdrive.ts";
import { parsePostgresSchema, parsePostgresServerConfig } from "./postgres/settings.ts";
import { type OpenSqliteFile, type SqliteFileConnection, SqliteFileLists, type StoreLog } from "./sqlite/file-store.ts";

/** What a Node, Bun or Deno server offers the stores: its runtime's SQLite driver, and its log. */
export interface ServerHost {
  readonly openSqlite: OpenSqliteFile;
  readonly log?: StoreLog;
}

/**
 * What a Worker offers the stores: its bindings, the request whose code runs now (undefined
 * outside one), and a way to finish work after the response.
 */
export interface WorkerHost {
  readonly bindings: {
    readonly TASK_LIST?: ListObjectNamespace | undefined;
    readonly TASK_LISTS?: DirectoryNamespace | undefined;
    readonly TASK_DB?: HyperdriveBinding | undefined;
  };
  readonly request: () => RequestWork | undefined;
  readonly waitUntil: (promise: Promise<unknown>) => void;
}

/** One row of the table: a value of TASK_STORE. */
interface StoreKind {
  /** Settings the store reads; a setting of another store is refused rather than ignored. */
  readonly settings: readonly string[];
  /** Where the list is kept, for the refusal of a setting that belongs to this store. */
  readonly keeps: (env: EnvRecord) => string;
  /** What a start says of where the lists live, what they survive, and how to keep them if they do not. */
  readonly lasts: (env: EnvRecord, where: Where) => string;
  /** Settings of this store a Worker does not read, and what to do instead. */
  readonly notOnWorkers?: Readonly<Record<string, string>>;
  /** How a server opens it; absent where a server cannot hold it. */
  readonly onServer?: (env: EnvRecord, host: ServerHost) => Promise<TaskLists>;
  /** How a Worker opens it; absent where a Worker cannot hold it. */
  readonly onWorker?: (env: EnvRecord, host: WorkerHost) => Promise<TaskLists>;
  /** Whether, on a Worker, it keeps something for the length of a request (a read, a database client): see {@link OpenedWorkerStore}. */
  readonly perRequestOnWorker?: true;
}

/** The database file a SQLite store uses when SQLITE_PATH is unset, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = "tasks.db";
/**
 * How often a Worker's reader waiting for a change looks at the isolate's list again: within the
 * contract's 100 ms for a task to reach the subscribers of its own isolate.
 */
const WORKER_MEMORY_POLL_MS = 50;

/** Every store, the default first. */
const KINDS = {
  memory: {
    settings: [],
    keeps: () => "in memory",
    lasts: (_env, where) =>
      where === "onWorker"
        ? "Lists are kept in this isolate's memory and lost when it stops: run with --env durable (npm start -- --env durable, npm run deploy) to keep them"
        : "Lists are kept in this process's memory and lost when it stops: set TASK_STORE=sqlite or TASK_STORE=postgres to keep them",
    onServer: async () => new HeldLists(),
    // On Workers one request may not wake another, so a waiting reader looks again on its own timer.
    onWorker: async () => new HeldLists({ pollMs: WORKER_MEMORY_POLL_MS }),
  },
  sqlite: {
    settings: ["SQLITE_PATH"],
    keeps: (env) => `in ${JSON.stringify(read(env, "SQLITE_PATH") ?? DEFAULT_SQLITE_PATH)}`,
    lasts: (env) =>
      `Lists are kept in the SQLite file ${JSON.stringify(read(env, "SQLITE_PATH") ?? DEFAULT_SQLITE_PATH)}, across restarts`,
    notOnWorkers: { SQLITE_PATH: "set TASK_STORE=durable to keep the list in the Durable Object's SQLite" },
    onServer: async (env, host) => openSqliteStore(read(env, "SQLITE_PATH") ?? DEFAULT_SQLITE_PATH, host),
  },
  durable: {
    settings: [],
    keeps: () => "in the Durable Object",
    lasts: () => "Lists are kept in Durable Objects, one per list, across restarts and deploys",
    // A request's key check keeps the read of the list it brought for the same request.
    perRequestOnWorker: true,
    onWorker: async (_env, host) => {
      const namespace = host.bindings.TASK_LIST;
      if (namespace === undefined) {
        throw new ConfigError(
          "TASK_STORE is durable but the TASK_LIST Durable Object binding is missing: run or deploy with --env durable, or bind TASK_LIST to the TaskListObject class in wrangler.toml",
        );
      }
      const directory = host.bindings.TASK_LISTS;
      if (directory === undefined) {
        throw new ConfigError(
          "TASK_STORE is durable but the TASK_LISTS Durable Object binding is missing: run or deploy with --env durable, or bind TASK_LISTS to the ListDirectoryObject class in wrangler.toml",
        );
      }
      // A request's key check and its read of the list are then one call to the list's object.
      return new DurableLists(namespace, directory, { request: host.request });
    },
  },
  postgres: {
    settings: ["DATABASE_URL", "DATABASE_SCHEMA", "DATABASE_POOL_SIZE"],
    keeps: () => "in PostgreSQL",
    lasts: (env) => `Lists are kept in PostgreSQL, in the schema ${parsePostgresSchema(env)}, across restarts`,
    notOnWorkers: {
      DATABASE_URL: "the database is reached through the TASK_DB Hyperdrive binding, so bind TASK_DB",
      DATABASE_POOL_SIZE: "Hyperdrive pools the connections",
    },
    // A Worker's database client serves one request only.
    perRequestOnWorker: true,
    // The driver is loaded only when asked for, so that the other stores start without it.
    onServer: async (env) =>
      (await import("./postgres/server-pool.ts")).openPostgresStore(parsePostgresServerConfig(env)),
    onWorker: async (env, host) => {
      const binding = host.bindings.TASK_DB;
      if (binding === undefined) {
        throw new ConfigError(
          "TASK_STORE is postgres but the TASK_DB Hyperdrive binding is missing: run or deploy with --env postgres, or bind TASK_DB to a Hyperdrive configuration in wrangler.toml",
        );
      }
      const { hyperdriveStore } = await import("./postgres/hyperdrive.ts");
      return hyperdriveStore(binding, parsePostgresSchema(env), host);
    },
  },
} as const satisfies Record<string, StoreKind>;

type KindName = keyof typeof KINDS;
/** Where the store is opened: on a Node, Bun or Deno server, or on Workers. */
export type Where = "onServer" | "onWorker";

/** A store opened: its lists, and one line for the start to say where they live and what they survive. */
export interface OpenedStore {
  readonly lists: TaskLists;
  /** Where the lists live, what they survive and, for memory, how to keep them. */
  readonly whereListsLive: string;
}

/** A Worker's store, opened. */
export interface OpenedWorkerStore extends OpenedStore {
  /**
   * Whether each request must run inside its own {@link RequestWork} for `WorkerHost.request` to
   * find it: true only for a store that keeps something per request. Others skip the cost.
   */
  readonly perRequest: boolean;
}

/**
 * Opens the lists of the store TASK_STORE names for a Node, Bun or Deno server. A SQLite file is opened and a
 * PostgreSQL database reached here, at start, so a list that cannot be served stops the server
 * with a {@link ConfigError} naming the variable and the cause, before it takes any request.
 */
export async function openServerStore(env: EnvRecord, host: ServerHost): Promise<OpenedStore> {
  const kind = KINDS[chooseKind(env, "onServer")] as StoreKind;
  if (kind.onServer === undefined) throw new Error("chooseKind returned a store servers cannot open");
  return { lists: await kind.onServer(env, host), whereListsLive: kind.lasts(env, "onServer") };
}

/**
 * Opens the lists of the store TASK_STORE names for a Worker, from its bindings. Nothing is reached yet: Workers
 * allow no I/O at start, so a database or object that cannot be reached gets 503 per request.
 */
export async function openWorkerStore(env: EnvRecord, host: WorkerHost): Promise<OpenedWorkerStore> {
  const kind = KINDS[chooseKind(env, "onWorker")] as StoreKind;
  if (kind.onWorker === undefined) throw new Error("chooseKind returned a store Workers cannot open");
  return {
    lists: await kind.onWorker(env, host),
    whereListsLive: kind.lasts(env, "onWorker"),
    perRequest: kind.perRequestOnWorker === true,
  };
}

/**
 * Reads TASK_STORE among the stores this runtime can open, and refuses a setting of another store,
 * which the user expects to keep the list and must never be dropped silently, or one a Worker
 * does not read.
 */
function chooseKind(env: EnvRecord, where: Where): KindName {
  const names = (Object.keys(KINDS) as KindName[]).filter((name) => (KINDS[name] as StoreKind)[where] !== undefined);
  const kind = parseChoice(env, "TASK_STORE", names as [KindName, ...KindName[]]);
  for (const [name, spec] of Object.entries(KINDS) as [KindName, StoreKind][]) {
    if (where === "onWorker") {
      for (const [setting, instead] of Object.entries(spec.notOnWorkers ?? {})) {
        if (read(env, setting) !== undefined) {
          throw new ConfigError(`${setting} is not read on Workers: ${instead} and unset ${setting}`);
        }
      }
    }
    if (name === kind) continue;
    const setting = spec.settings.find((s) => read(env, s) !== undefined);
    if (setting === undefined) continue;
    throw new ConfigError(
      `${setting} is set but TASK_STORE is ${kind}: set TASK_STORE=${name} to keep the list ${spec.keeps(env)}, or unset ${setting}`,
    );
  }
  return kind;
}

/** Opens the lists in the SQLite file at `path`, or stops the start naming SQLITE_PATH and the cause. */
function openSqliteStore(path: string, host: ServerHost): SqliteFileLists {
  let connection: SqliteFileConnection | undefined;
  try {
    connection = host.openSqlite(path);
    return new SqliteFileLists(connection, host.log);
  } catch (error) {
    // Releases the file's lock, which a database that opened but could not hold the list would keep.
    connection?.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `SQLITE_PATH must name a SQLite database file this process can create, read and write, got ${JSON.stringify(path)}: ${reason}`,
      { cause: error },
    );
  }
}
