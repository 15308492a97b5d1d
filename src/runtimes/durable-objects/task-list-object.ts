// One list in a SQLite-backed Durable Object of its own, named by the list's name, reached by typed
// RPC calls, and the WebSocket subscribers it holds itself: only the Worker's main module loads it,
// since it extends cloudflare:workers' DurableObject.
import { DurableObject } from "cloudflare:workers";
import type { ListLimits } from "../../config.ts";
import { ChangeSignal } from "../../engine/change-signal.ts";
import { changesReply, NO_CHANGES } from "../../engine/changes-reply.ts";
import { CHANGES_CHUNK_BYTES } from "../../engine/mirror.ts";
import { newInstance } from "../../engine/new-history.ts";
import type {
  AppendResult,
  IdempotencyKey,
  IfMatch,
  KeyAdded,
  KeyRemoved,
  ListMissing,
  ListState,
  RemoveResult,
  TaskPatch,
  UpdateResult,
} from "../../engine/task-store.ts";
import type { Decision, HeldList } from "../../list/held-list.ts";
import { freshDirectory, type ListRecord, madeAgain } from "../../list/list-directory.ts";
import type { ListKey } from "../../list/list-keys.ts";
import { DEFAULT_LIST } from "../../list/list-names.ts";
import { isNewTask, isTaskPatch, type NewTask } from "../../list/task.ts";
import { missingList, type WriteResult } from "../../list/writes.ts";
import { LIST_DELETED, NOT_FOUND, UNKNOWN_TOKEN } from "../../messages.ts";
import * as rules from "../../socket-rules.ts";
import type { ListObjectChanges, ListObjectRpc } from "../../store/durable-object/list-object-rpc.ts";
import { CALLED_WITHOUT_TASK, type StorageFailed } from "../../store/durable-object/stored.ts";
import type { SqliteConnection } from "../../store/sqlite/sqlite-connection.ts";
import { openSqliteDatabase, SqliteList } from "../../store/sqlite/sqlite-list.ts";
import { HeldObjectKeys } from "./held-object-keys.ts";
import { ListSockets } from "./list-sockets.ts";
import {
  forgetDeleted,
  freeStorage,
  isEmpty,
  onlyList,
  stoppedAt,
  storageConnection,
  stored,
} from "./object-storage.ts";
import { ObjectWaits } from "./object-waits.ts";

/**
 * One list, in the Durable Object named by its name: held in the object's memory while it is awake
 * (loaded from its SQLite when it wakes), where each write is decided; SQLite keeps each change
 * before the list takes it. The object alone knows whether its list lives, was deleted or was
 * never created, so a request to the list touches no other object. `default` exists from the
 * start, with its initial tasks; any other list once the directory object creates it. Each Worker
 * keeps its own copy and asks only for what changed since, so RPC values stay small however long
 * the list grows. WebSocket subscribers connect to the object itself, through the Hibernation API:
 * it may leave memory between writes while they stay connected, and an idle list costs nothing.
 */
export class TaskListObject extends DurableObject implements ListObjectRpc {
  // Built synchronously in the constructor, since the SQL API is synchronous: no request can reach
  // the object before the list is loaded, which is what blockConcurrencyWhile would otherwise ensure.
  readonly #db: SqliteConnection;
  readonly #sqlite: SqliteList;
  /** The list while it lives; undefined once deleted, or before it is created. */
  #list: HeldList | undefined;
  #state: ListState;
  /** Callers waiting in {@link nextChange}, on the signal of the list's life: it ends when the list is deleted. */
  readonly #waiting = new ObjectWaits();
  #changes = new ChangeSignal(() => this.#list?.changedBytes ?? 0);
  readonly #sockets = new ListSockets(this.ctx, () => this.#list);
  /** The list's keys, which live and die with it. */
  readonly #keys: HeldObjectKeys;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#db = storageConnection(ctx.storage);
    // A name never created stores nothing, not even the tables: a stranger's reads of made-up names
    // leave no object behind. The tables come with the list, or at once for the default list; tables
    // an older release made are brought up to date before anything reads them.
    if (!isEmpty(this.#db)) openSqliteDatabase(this.#db);
    const name = ctx.id.name ?? onlyList(this.#db);
    this.#sqlite = new SqliteList(this.#db, name);
    this.#keys = new HeldObjectKeys(this.#sqlite);
    if (name === DEFAULT_LIST && isEmpty(this.#db)) openSqliteDatabase(this.#db);
    if (name === DEFAULT_LIST && this.#sqlite.row() === undefined) {
      const [fresh] = freshDirectory(newInstance()).lists;
      if (fresh !== undefined) this.#db.transaction(() => this.#sqlite.create(fresh, 0, undefined));
    }
    this.#state = this.#loaded();
    // Deleted by an older release, or made again only half-way, a gone list still has its tables: freed now.
    if (this.#state.state === "gone" && !isEmpty(this.#db)) freeStorage(this.#db, this.#sqlite);
  }

  /** Whether the list lives, with its title and own version: the list's answer to `/lists/{name}`. */
  state(): ListState {
    return this.#state;
  }

  /**
   * Makes the list live as `record`, empty, its ids and change numbers after the highest it ever
   * gave; the directory object calls it, once more after a failure, so a list already live as
   * `record` stays as it is.
   */
  create(record: ListRecord): ListState | StorageFailed {
    if (this.#state.state === "live" && this.#state.version === record.version) return this.#state;
    const stopped = this.#state.state === "not-found" ? undefined : stoppedAt(this.#db, this.#sqlite);
    const resume = stopped === undefined ? { highestId: 0, change: 0 } : madeAgain(stopped);
    return stored(() => {
      if (isEmpty(this.#db)) openSqliteDatabase(this.#db);
      this.#db.transaction(() => {
        this.#sqlite.create(record, 0, resume);
        forgetDeleted(this.#db);
      });
      this.#state = this.#loaded();
      return this.#state;
    });
  }

  /** Gives the list a new title and version, as the directory object decided. */
  retitle(record: ListRecord): ListState | StorageFailed {
    if (this.#state.state !== "live") return this.#state;
    return stored(() => {
      this.#db.transaction(() => this.#sqlite.retitle(record));
      this.#state = { state: "live", title: record.title, version: record.version };
      return this.#state;
    });
  }

  /**
   * Deletes the list and the tables it was kept in, keeping only where its ids and change numbers
   * stopped: every waiting reader is woken to read it gone, and every socket gets `gone` and is closed.
   */
  delete(): ListState | StorageFailed {
    if (this.#state.state !== "live") return this.#state;
    const failed = stored(() => freeStorage(this.#db, this.#sqlite));
    if (failed !== undefined) return failed;
    this.#list = undefined;
    this.#keys.forget();
    this.#state = { state: "gone" };
    this.#changes.end();
    this.#changes = new ChangeSignal(() => this.#list?.changedBytes ?? 0);
    this.#sockets.gone();
    return this.#state;
  }

  changes(instance: string | undefined, after: number, keyHash?: string): ListObjectChanges {
    const list = this.#list;
    const key = keyHash === undefined ? {} : { key: this.keyOf(keyHash) ?? null };
    if (list === undefined) return { ...NO_CHANGES, list: this.#state, ...key };
    return {
      ...changesReply(list.read(), list.instance, instance, after, CHANGES_CHUNK_BYTES),
      list: this.#state,
      ...key,
    };
  }

  append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): AppendResult | ListMissing | StorageFailed {
    if (!isNewTask(task)) return CALLED_WITHOUT_TASK;
    if (this.#list === undefined) return this.#missing();
    return this.#made(this.#list, this.#list.append(task, limits, key));
  }

  update(
    id: number,
    patch: TaskPatch,
    limits: ListLimits,
    ifMatch: IfMatch,
  ): UpdateResult | ListMissing | StorageFailed {
    if (!isTaskPatch(patch)) return CALLED_WITHOUT_TASK;
    if (this.#list === undefined) return this.#missing();
    return this.#made(this.#list, this.#list.update(id, patch, limits, ifMatch));
  }

  remove(id: number, ifMatch: IfMatch): RemoveResult | ListMissing | StorageFailed {
    if (this.#list === undefined) return this.#missing();
    return this.#made(this.#list, this.#list.remove(id, ifMatch));
  }

  /**
   * Persists and applies the decision's change, if it makes one; then wakes every waiting call and
   * feeds every socket: one at the end gets the change as it is, one still catching up reads on.
   */
  #made<R extends WriteResult>(list: HeldList, decision: Decision<R>): R | StorageFailed {
    const before = list.change;
    const made = stored(() => list.commit(decision, (change) => this.#sqlite.persist(change)));
    if (list.change === before) return made;
    this.#changes.notify();
    this.#sockets.changed(list, before);
    return made;
  }

  keys(): readonly ListKey[] | ListMissing {
    return this.#list === undefined ? this.#missing() : this.#keys.all();
  }

  addKey(row: ListKey, max: number): KeyAdded | StorageFailed {
    return this.#list === undefined ? this.#missing() : this.#keys.add(row, max);
  }

  /** Revokes key `id`: every socket that came with it gets `revoked` and is closed. */
  removeKey(id: string): KeyRemoved | StorageFailed {
    const removed = this.#list === undefined ? this.#missing() : this.#keys.remove(id);
    if (removed.outcome === "removed") this.#sockets.revoked(id);
    return removed;
  }

  keyOf(hash: string): ListKey | undefined {
    return this.#list === undefined ? undefined : this.#keys.byHash(hash);
  }

  /** True at the next change, or once past `bytesAfter`; at once for a deleted list, whose readers find it gone. */
  nextChange(change: number, waitMs: number, key: string, bytesAfter?: number): Promise<boolean> {
    const list = this.#list;
    if (list === undefined) return Promise.resolve(true);
    if (bytesAfter === undefined) {
      const at = list.change;
      if (at > change) return Promise.resolve(true);
      return this.#waiting.wait(key, waitMs, (signal) => this.#changes.wait(() => list.change !== at, signal));
    }
    // The level the list's changed bytes must pass: changes older than the journal reaches pass it now.
    const mark = list.changedBytes - list.read().bytesChangedAfter(change) + bytesAfter;
    if (list.changedBytes > mark) return Promise.resolve(true);
    return this.#waiting.wait(key, waitMs, (signal) => this.#changes.waitPast(mark, signal));
  }

  stopWaiting(key: string): void {
    this.#waiting.stop(key);
  }

  nextKeyChange(seen: string | undefined, waitMs: number, key: string): Promise<string> {
    return this.#keys.next(seen, waitMs, key);
  }

  stopKeyWait(key: string): void {
    this.#keys.stopWaiting(key);
  }

  /** How many callers wait in the object, for a change or a key's: none once every reader has gone. */
  waiters(): number {
    return this.#waiting.size + this.#keys.waiters;
  }

  /**
   * A WebSocket subscriber, forwarded by a Worker with its cursor as `after`, the deployment's
   * MAX_SUBSCRIBERS as `max` (see {@link ListSockets}) and the hash of the list key it came with, if
   * one let it in, as `key`; 404 or 410 for a list that does not live.
   */
  override async fetch(request: Request): Promise<Response> {
    const params = new URL(request.url).searchParams;
    const hash = params.get("key");
    const list = this.#list;
    if (list === undefined) {
      const gone = this.#state.state === "gone";
      return Response.json({ message: gone ? LIST_DELETED : NOT_FOUND }, { status: gone ? 410 : 404 });
    }
    const key = hash === null ? undefined : this.#keys.byHash(hash);
    // Revoked between the Worker's check and now: refused as the Worker refuses a key it does not know.
    if (hash !== null && key === undefined) return unknownToken();
    return this.#sockets.admit(list, Number(params.get("after") ?? "0"), Number(params.get("max") ?? "0"), key);
  }

  /** A key's expiry came: its sockets are told they are revoked. */
  override async alarm(): Promise<void> {
    await this.#sockets.expire(Date.now());
  }

  /** The service reads no message: a big one closes the socket, as on every runtime. */
  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    if (rules.tooBig(message)) ws.close(rules.MESSAGE_TOO_BIG, rules.TOO_BIG_REASON);
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    // The Hibernation API leaves the reply to the subscriber's close to the object.
    ws.close(code === 1005 || code === 1006 || code === 1015 ? 1000 : code);
    if (this.#list === undefined) this.#sockets.closed();
  }

  override webSocketError(ws: WebSocket): void {
    ws.close(1011, "The connection failed");
  }

  /** The list's state as its rows say, holding the list in memory while it lives: gone once it stopped somewhere. */
  #loaded(): ListState {
    const row = isEmpty(this.#db) ? undefined : this.#sqlite.row();
    this.#list = row?.live === true ? this.#sqlite.held(row) : undefined;
    if (row?.live === true) return { state: "live", title: row.title, version: row.version };
    return stoppedAt(this.#db, this.#sqlite) === undefined ? { state: "not-found" } : { state: "gone" };
  }

  #missing(): ListMissing {
    return missingList(this.#state.state === "gone" ? "gone" : "not-found");
  }
}

/** The 401 of a key revoked since the Worker let its subscriber in. */
function unknownToken(): Response {
  const headers = { "WWW-Authenticate": 'Bearer realm="tasks", error="invalid_token"' };
  return Response.json({ message: UNKNOWN_TOKEN }, { status: 401, headers });
}
