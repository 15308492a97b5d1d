// The directory of lists in a SQLite-backed Durable Object of its own: which lists exist, their
// titles, the POST keys and MAX_LISTS, decided here one write at a time, and each decision carried
// to the list's own object. Only the Worker's main module loads it, since it extends
// cloudflare:workers' DurableObject.
import { DurableObject } from "cloudflare:workers";
import type { Directory, IdempotencyKey } from "../../engine/task-store.ts";
import {
  type DirectoryLimits,
  ListDirectory,
  type ListIfMatch,
  type ListRecord,
  type ListResult,
  type PutConditions,
} from "../../list/list-directory.ts";
import { DEFAULT_LIST } from "../../list/list-names.ts";
import type { DirectoryReply, DirectoryRpc } from "../../store/durable-object/durable-lists.ts";
import type { ListObjectNamespace } from "../../store/durable-object/list-object-rpc.ts";
import { unlessFailed } from "../../store/durable-object/stored.ts";
import type { SqliteConnection } from "../../store/sqlite/sqlite-connection.ts";
import { SqliteDirectory } from "../../store/sqlite/sqlite-directory.ts";
import { openSqliteDatabase, SqliteList } from "../../store/sqlite/sqlite-list.ts";
import { storageConnection } from "./object-storage.ts";

/** A decision on a list that its own object must still be told of. */
interface Intent {
  readonly action: "create" | "retitle" | "delete";
  readonly list: ListRecord;
}

/** How long the object waits before it tells a list's object again of a decision that did not reach it. */
const RETRY_MS = 1000;
const START = { highestId: 0, change: 0 };

/**
 * The directory of lists. Each write is decided by `list/list-directory.ts`, then kept in this
 * object's SQLite in one transaction with an intent: what the list's object must do (create,
 * retitle or delete its list). The list's object is then told, and the intent is dropped once it
 * has done so. One told nothing (a crash, a failure) is told again when this object wakes, at
 * its next call, and by an alarm, so `/lists` and each list's own answers agree once both are
 * back. Writes run one at a time: of two PUTs creating one name, one is decided first, and the
 * other finds the list. A list's own object keeps its ids and change numbers across its
 * deletion, so a name made again continues after them.
 */
export class ListDirectoryObject extends DurableObject implements DirectoryRpc {
  readonly #db: SqliteConnection;
  readonly #rows: SqliteDirectory;
  readonly #lists: ListObjectNamespace;
  /** The directory in memory, read from SQLite on first use (with the default list's record from its object). */
  #directory: ListDirectory | undefined;
  /** The decisions not yet carried to their lists' objects, by list name. */
  readonly #intents = new Map<string, Intent>();
  /** The call under way: each waits for the one before it. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    if (env.TASK_LIST === undefined) throw new Error("The directory of lists needs the TASK_LIST binding");
    this.#lists = env.TASK_LIST;
    this.#db = storageConnection(ctx.storage);
    openSqliteDatabase(this.#db);
    this.#rows = new SqliteDirectory(this.#db);
    for (const row of this.#db.query("SELECT name, action, title, version FROM list_intents")) {
      const name = String(row.name);
      const list = { name, title: String(row.title), version: String(row.version) };
      this.#intents.set(name, { action: row.action as Intent["action"], list });
    }
    // Woken with decisions its lists were never told of (it stopped before): tells them soon.
    if (this.#intents.size > 0) void ctx.storage.setAlarm(Date.now());
  }

  directory(): Promise<Directory> {
    return this.#serial(async () => {
      const directory = await this.#opened();
      return { version: directory.version, json: directory.json };
    });
  }

  create(title: string, limits: DirectoryLimits, key?: IdempotencyKey): Promise<DirectoryReply> {
    return this.#write(undefined, (directory) => directory.create(title, limits, key), limits.maxKeys);
  }

  put(name: string, title: string, conditions: PutConditions, limits: DirectoryLimits): Promise<DirectoryReply> {
    return this.#write(name, (directory) => directory.put(name, title, conditions, limits), limits.maxKeys);
  }

  patch(name: string, title: string | undefined, ifMatch: ListIfMatch): Promise<DirectoryReply> {
    return this.#write(name, (directory) => directory.patch(name, title, ifMatch), 0);
  }

  remove(name: string, ifMatch: ListIfMatch): Promise<DirectoryReply> {
    // The list's object keeps where its ids and change numbers stopped: the directory need not.
    return this.#write(name, (directory) => directory.remove(name, ifMatch, () => START), 0);
  }

  /** Tells the lists' objects of the decisions they missed, and comes back later for any still missed. */
  override async alarm(): Promise<void> {
    await this.#serial(() => this.#tellAll());
    if (this.#intents.size > 0) await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
  }

  /**
   * Decides a write to list `name` (undefined: a new random name), keeps the decision and its
   * intent in one transaction, then tells the list's object. A list whose last decision its object
   * was not yet told of takes no new one: 503, try again.
   */
  #write(name: string | undefined, decide: (directory: ListDirectory) => ListResult, maxKeys: number) {
    return this.#serial(async (): Promise<DirectoryReply> => {
      const directory = await this.#opened();
      if (name !== undefined && this.#intents.has(name)) return unreached(name);
      let result: ListResult;
      let intent: Intent | undefined;
      try {
        result = this.#db.transaction(() => {
          const decided = decide(directory);
          this.#rows.persist(decided, maxKeys);
          intent = intentOf(decided, directory);
          if (intent !== undefined) {
            const { list } = intent;
            this.#db.query(
              "INSERT OR REPLACE INTO list_intents (name, action, title, version) VALUES (?, ?, ?, ?)",
              list.name,
              intent.action,
              list.title,
              list.version,
            );
          }
          return decided;
        });
      } catch (error) {
        // The decision was made in memory, but not kept: the directory is read again from SQLite.
        this.#directory = undefined;
        throw error;
      }
      if (intent === undefined) return result;
      this.#intents.set(intent.list.name, intent);
      if (await this.#tell(intent)) return result;
      await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
      return unreached(intent.list.name);
    });
  }

  /** Tells list objects of every decision not yet carried to them. */
  async #tellAll(): Promise<void> {
    for (const intent of [...this.#intents.values()]) await this.#tell(intent);
  }

  /** Tells the list's object of `intent`, and forgets it once told; whether the object was told. */
  async #tell({ action, list }: Intent): Promise<boolean> {
    const stub = this.#lists.getByName(list.name);
    try {
      const what = `The list ${JSON.stringify(list.name)}'s Durable Object`;
      if (action === "create") unlessFailed(what, await stub.create(list));
      else if (action === "retitle") unlessFailed(what, await stub.retitle(list));
      else unlessFailed(what, await stub.delete());
    } catch (error) {
      console.error(
        JSON.stringify({
          level: "error",
          message: `The list ${JSON.stringify(list.name)} could not be told of its ${action}: told again shortly`,
          error: String(error),
        }),
      );
      return false;
    }
    this.#db.query("DELETE FROM list_intents WHERE name = ?", list.name);
    this.#intents.delete(list.name);
    return true;
  }

  /** The directory, read on first use; the lists' objects are first told of any decision they missed. */
  async #opened(): Promise<ListDirectory> {
    await this.#tellAll();
    if (this.#directory !== undefined) return this.#directory;
    let state = this.#rows.state();
    if (!state.lists.some((list) => list.name === DEFAULT_LIST)) {
      // A new directory: the default list is its first, as its own object has it.
      const list = await this.#lists.getByName(DEFAULT_LIST).state();
      if (list.state !== "live") throw new Error("The default list's object holds no list");
      const record = { name: DEFAULT_LIST, title: list.title, version: list.version };
      this.#db.transaction(() => new SqliteList(this.#db, DEFAULT_LIST).create(record, 0, START));
      state = this.#rows.state();
    }
    this.#directory = new ListDirectory(state);
    return this.#directory;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => {});
    return run;
  }
}

/** What the list's object must do for `result`, if anything. */
function intentOf(result: ListResult, directory: ListDirectory): Intent | undefined {
  if (result.outcome === "created") return { action: "create", list: result.list };
  if (result.outcome === "retitled") return { action: "retitle", list: result.list };
  if (result.outcome !== "deleted") return undefined;
  return { action: "delete", list: { name: result.name, title: "", version: directory.version } };
}

function unreached(name: string): DirectoryReply {
  return {
    outcome: "unavailable",
    reason: `The Durable Object of the list ${JSON.stringify(name)} has not yet been told of its last change: try again shortly`,
  };
}
