// The deployment's list in a SQLite-backed Durable Object, reached by typed RPC calls, and the
// WebSocket subscribers it holds itself: only the Worker's main module loads it, since it extends
// cloudflare:workers' DurableObject.
import { DurableObject } from "cloudflare:workers";
import type { ListLimits } from "../../config.ts";
import { eventText, RESET_TEXT } from "../../list/event-text.ts";
import type { Decision, HeldList } from "../../list/held-list.ts";
import { FOLLOWER_CUT_OFF_BYTES } from "../../list/limits.ts";
import { DEFAULT_LIST, DEFAULT_TITLE } from "../../list/list-names.ts";
import type { WriteResult } from "../../list/writes.ts";
import { TOO_MANY_SUBSCRIBERS } from "../../messages.ts";
import * as rules from "../../socket-rules.ts";
import { changesReply } from "../changes-reply.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges } from "../mirror.ts";
import { SINGLE_LIST_VERSION } from "../single-list.ts";
import type { SqliteConnection } from "../sqlite/sqlite-connection.ts";
import { openSqliteDatabase, SqliteList } from "../sqlite/sqlite-list.ts";
import type { AppendResult, IdempotencyKey, IfMatch, RemoveResult, UpdateResult } from "../store.ts";
import type { ListObjectRpc } from "./durable-store.ts";

const decoder = new TextDecoder();

/**
 * What waits unsent on a socket. workerd has no `bufferedAmount` yet (cloudflare/workerd#988),
 * though its types declare one: read as 0, so each event goes out at once and a socket whose
 * client stopped reading is never found behind (docs/live-changes.md).
 */
function queued(ws: WebSocket): number {
  return ws.bufferedAmount ?? 0;
}

/** What the object keeps with each subscriber's socket, across hibernation. */
interface Follower {
  /** The change number of the last event sent to it. */
  readonly cursor: number;
  /** The list's last change when it came: changes after it are new, and count towards cutting it off. */
  readonly backlogEnd: number;
}

/**
 * A deployment's list, held in the object's memory while it is awake (loaded from its SQLite when
 * it wakes), where each write is decided; SQLite keeps each change before the list takes it. Each
 * Worker keeps its own copy and asks only for what changed since, so RPC values stay small however
 * long the list grows. WebSocket subscribers connect to the object itself, through the Hibernation
 * API: the object may leave memory between writes while they stay connected, so an idle list costs
 * nothing.
 */
export class TaskListObject extends DurableObject implements ListObjectRpc {
  // Built synchronously in the constructor, since the SQL API is synchronous: no request can reach
  // the object before the list is loaded, which is what blockConcurrencyWhile would otherwise ensure.
  readonly #sqlite: SqliteList;
  readonly #list: HeldList;
  /** Callers waiting in {@link nextChange}, by the key each gave; a change wakes them all. */
  readonly #waiting = new Map<string, (changed: boolean) => void>();
  /** Sockets whose catch-up goes on in a later turn: a change does not start a second one. */
  readonly #catchingUp = new Set<WebSocket>();

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    const connection = storageConnection(ctx.storage);
    openSqliteDatabase(connection);
    this.#sqlite = new SqliteList(connection, DEFAULT_LIST);
    const row =
      this.#sqlite.row() ??
      connection.transaction(() => {
        this.#sqlite.create({ name: DEFAULT_LIST, title: DEFAULT_TITLE, version: SINGLE_LIST_VERSION }, 0, undefined);
        return this.#sqlite.row();
      });
    if (row === undefined) throw new Error("The default list could not be made");
    this.#list = this.#sqlite.held(row);
  }

  changes(instance: string | undefined, after: number): ListChanges {
    return changesReply(this.#list.read(), this.#list.instance, instance, after, CHANGES_CHUNK_BYTES);
  }

  append(titleJson: Uint8Array, completed: boolean, limits: ListLimits, key?: IdempotencyKey): AppendResult {
    return this.#made(this.#list.append({ title: titleOf(titleJson), completed }, limits, key));
  }

  update(
    id: number,
    titleJson: Uint8Array | undefined,
    completed: boolean | undefined,
    limits: ListLimits,
    ifMatch: IfMatch,
  ): UpdateResult {
    const patch = {
      ...(titleJson === undefined ? {} : { title: titleOf(titleJson) }),
      ...(completed === undefined ? {} : { completed }),
    };
    return this.#made(this.#list.update(id, patch, limits, ifMatch));
  }

  remove(id: number, ifMatch: IfMatch): RemoveResult {
    return this.#made(this.#list.remove(id, ifMatch));
  }

  /**
   * Persists and applies the decision's change, if it makes one; then wakes every waiting call and
   * feeds every socket: one at the end gets the change as it is, one still catching up reads on.
   */
  #made<R extends WriteResult>({ result, change }: Decision<R>): R {
    if (change === undefined) return result;
    const before = this.#list.change;
    this.#sqlite.persist(change);
    this.#list.apply(change);
    const event = this.#list.read().changesAfter(before)?.[0];
    for (const wake of this.#waiting.values()) wake(true);
    for (const ws of this.ctx.getWebSockets()) {
      const follower = ws.deserializeAttachment() as Follower;
      if (event !== undefined && follower.cursor === before && queued(ws) < rules.SOCKET_MARK_BYTES) {
        ws.send(eventText(event));
        ws.serializeAttachment({ ...follower, cursor: event.change } satisfies Follower);
      } else if (!this.#catchingUp.has(ws)) {
        this.#feed(ws);
      }
    }
    return result;
  }

  nextChange(change: number, waitMs: number, key: string): Promise<boolean> {
    if (this.#list.change > change) return Promise.resolve(true);
    return new Promise((done) => {
      const finish = (changed: boolean) => {
        this.#waiting.delete(key);
        clearTimeout(timer);
        done(changed);
      };
      const timer = setTimeout(() => finish(false), waitMs);
      this.#waiting.get(key)?.(false);
      this.#waiting.set(key, finish);
    });
  }

  stopWaiting(key: string): void {
    this.#waiting.get(key)?.(false);
  }

  /**
   * A WebSocket subscriber, forwarded by a Worker with its cursor as `after` and the deployment's
   * MAX_SUBSCRIBERS as `max`: one text message per task after the cursor, then one per new task.
   */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const cursor = Number(url.searchParams.get("after") ?? "0");
    const max = Number(url.searchParams.get("max") ?? "0");
    if (this.ctx.getWebSockets().length >= max) {
      return Response.json({ message: TOO_MANY_SUBSCRIBERS }, { status: 503, headers: { "Retry-After": "1" } });
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ cursor, backlogEnd: this.#list.change } satisfies Follower);
    this.#feed(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** The service reads no message: a big one closes the socket, as on every runtime. */
  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    if (rules.tooBig(message)) ws.close(rules.MESSAGE_TOO_BIG, rules.TOO_BIG_REASON);
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    // The Hibernation API leaves the reply to the subscriber's close to the object.
    ws.close(code === 1005 || code === 1006 || code === 1015 ? 1000 : code);
  }

  override webSocketError(ws: WebSocket): void {
    ws.close(1011, "The connection failed");
  }

  /**
   * Sends `ws` the events after its cursor, about 64 KiB of them a turn while it takes them (a reset
   * and the whole list when the cursor cannot be brought up to date); a socket that holds too much
   * is looked at again shortly, and cut off once more than {@link FOLLOWER_CUT_OFF_BYTES} of new
   * changes wait.
   */
  #feed(ws: WebSocket): void {
    this.#catchingUp.delete(ws);
    if (ws.readyState !== WebSocket.OPEN) return;
    const follower = ws.deserializeAttachment() as Follower;
    if (follower.cursor === this.#list.change) return;
    if (queued(ws) >= rules.SOCKET_MARK_BYTES) {
      if (
        this.#list.read().bytesChangedAfter(Math.max(follower.cursor, follower.backlogEnd)) > FOLLOWER_CUT_OFF_BYTES
      ) {
        ws.close(rules.TRY_AGAIN_LATER, rules.TOO_FAR_BEHIND);
      } else {
        this.#catchingUp.add(ws);
        setTimeout(() => this.#feed(ws), rules.DRAIN_POLL_MS);
      }
      return;
    }
    // Its backlog one event per task, then every change as it was made.
    const version = this.#list.read();
    const every = follower.cursor >= follower.backlogEnd ? version.changesAfter(follower.cursor) : undefined;
    const folded = every === undefined ? version.eventsAfter(follower.cursor) : undefined;
    if (folded?.reset === true) ws.send(RESET_TEXT);
    let cursor = folded?.reset === true ? 0 : follower.cursor;
    let sent = 0;
    for (const event of every ?? folded?.events ?? []) {
      ws.send(eventText(event));
      cursor = event.change;
      sent += event.json.byteLength;
      if (sent >= rules.SOCKET_MARK_BYTES) break;
    }
    if (sent < rules.SOCKET_MARK_BYTES) cursor = version.change;
    ws.serializeAttachment({ ...follower, cursor } satisfies Follower);
    // The rest in later turns, so that the object answers other requests between two batches.
    if (cursor !== version.change) {
      this.#catchingUp.add(ws);
      setTimeout(() => this.#feed(ws), 0);
    }
  }
}

/** A title sent as the UTF-8 of its JSON string literal, which carries any title exactly. */
function titleOf(titleJson: Uint8Array): string {
  const title: unknown = JSON.parse(decoder.decode(titleJson));
  if (typeof title !== "string") throw new TypeError("The title must come as a JSON string literal");
  return title;
}

function storageConnection(storage: DurableObjectStorage): SqliteConnection {
  return {
    query: (sql, ...params) => storage.sql.exec(sql, ...params).toArray(),
    iterate: (sql, ...params) => storage.sql.exec(sql, ...params),
    transaction: (work) => storage.transactionSync(work),
  };
}
