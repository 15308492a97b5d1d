// The deployment's list in a SQLite-backed Durable Object, reached by typed RPC calls, and the
// WebSocket subscribers it holds itself: only the Worker's main module loads it, since it extends
// cloudflare:workers' DurableObject.
import { DurableObject } from "cloudflare:workers";
import type { ListLimits } from "../../config.ts";
import { FOLLOWER_CUT_OFF_BYTES } from "../../list/limits.ts";
import {
  DRAIN_POLL_MS,
  MESSAGE_TOO_BIG,
  SOCKET_MARK_BYTES,
  TOO_BIG_REASON,
  TOO_FAR_BEHIND,
  TRY_AGAIN_LATER,
  tooBig,
} from "../../live/socket-rules.ts";
import { TOO_MANY_SUBSCRIBERS } from "../../messages.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges } from "../mirror.ts";
import { type SqliteConnection, SqliteList } from "../sqlite/sqlite-list.ts";
import type { IdempotencyKey } from "../store.ts";
import type { ListObjectRpc, ObjectAppendResult } from "./durable-store.ts";

const decoder = new TextDecoder();

/** What the object keeps with each subscriber's socket, across hibernation. */
interface Follower {
  /** The id of the last task sent to it. */
  readonly cursor: number;
  /** The last id when it came: tasks after it are new, and count towards cutting it off. */
  readonly backlogEnd: number;
}

/**
 * A deployment's list. It keeps no copy of the list in memory: each Worker keeps its own and asks
 * only for the tasks it lacks, so the object's memory and each RPC value stay small however long
 * the list grows. WebSocket subscribers connect to the object itself, through the Hibernation API:
 * the object may leave memory between appends while they stay connected, so an idle list costs
 * nothing.
 */
export class TaskListObject extends DurableObject implements ListObjectRpc {
  // Built synchronously in the constructor, since the SQL API is synchronous: no request can reach
  // the object before the list is open, which is what blockConcurrencyWhile would otherwise ensure.
  readonly #list: SqliteList;
  /** Callers waiting in {@link nextChange}, by the key each gave; an append wakes them all. */
  readonly #waiting = new Map<string, (changed: boolean) => void>();

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#list = new SqliteList(storageConnection(ctx.storage));
  }

  changes(instance: string | undefined, afterId: number): ListChanges {
    const from = instance === this.#list.instance ? afterId : 0;
    return {
      instance: this.#list.instance,
      tasks: this.#list.usage.tasks,
      afterId: from,
      added: this.#list.tasksAfter(from, CHANGES_CHUNK_BYTES),
    };
  }

  append(titleJson: Uint8Array, completed: boolean, limits: ListLimits, key?: IdempotencyKey): ObjectAppendResult {
    const title: unknown = JSON.parse(decoder.decode(titleJson));
    if (typeof title !== "string") throw new TypeError("The title must come as a JSON string literal");
    const before = this.#list.lastId;
    const appended = this.#list.append({ title, completed }, limits, key);
    if ("full" in appended) return { full: appended.full, usage: this.#list.usage };
    if ("keyReused" in appended) return { keyReused: true, usage: this.#list.usage };
    if ("replayed" in appended) return { replayed: appended.replayed, usage: this.#list.usage };
    for (const wake of this.#waiting.values()) wake(true);
    for (const ws of this.ctx.getWebSockets()) {
      const follower = ws.deserializeAttachment() as Follower;
      // A subscriber at the end gets the new task as it is; one still catching up reads on.
      if (follower.cursor === before && ws.bufferedAmount < SOCKET_MARK_BYTES) {
        ws.send(appended.text);
        ws.serializeAttachment({ ...follower, cursor: appended.task.id } satisfies Follower);
      } else {
        this.#feed(ws);
      }
    }
    return { id: appended.task.id, usage: this.#list.usage };
  }

  nextChange(lastId: number, waitMs: number, key: string): Promise<boolean> {
    if (this.#list.lastId > lastId) return Promise.resolve(true);
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
    server.serializeAttachment({ cursor, backlogEnd: this.#list.lastId } satisfies Follower);
    this.#feed(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** The service reads no message: a big one closes the socket, as on every runtime. */
  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    if (tooBig(message)) ws.close(MESSAGE_TOO_BIG, TOO_BIG_REASON);
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    // The Hibernation API leaves the reply to the subscriber's close to the object.
    ws.close(code === 1005 || code === 1006 || code === 1015 ? 1000 : code);
  }

  override webSocketError(ws: WebSocket): void {
    ws.close(1011, "The connection failed");
  }

  /**
   * Sends `ws` the tasks after its cursor while it takes them; a socket that holds too much is
   * looked at again shortly, and cut off once more than {@link FOLLOWER_CUT_OFF_BYTES} of new tasks wait.
   */
  #feed(ws: WebSocket): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    let follower = ws.deserializeAttachment() as Follower;
    while (follower.cursor < this.#list.lastId) {
      if (ws.bufferedAmount >= SOCKET_MARK_BYTES) {
        if (this.#list.bytesAfter(Math.max(follower.cursor, follower.backlogEnd)) > FOLLOWER_CUT_OFF_BYTES) {
          ws.close(TRY_AGAIN_LATER, TOO_FAR_BEHIND);
        } else {
          setTimeout(() => this.#feed(ws), DRAIN_POLL_MS);
        }
        return;
      }
      const { json, lengths } = this.#list.tasksAfter(follower.cursor, SOCKET_MARK_BYTES);
      let offset = 0;
      let cursor = follower.cursor;
      for (const length of lengths) {
        const text = decoder.decode(json.subarray(offset, offset + length));
        ws.send(text);
        cursor = Number(/^\{"id":(\d+)/.exec(text)?.[1] ?? cursor);
        offset += length + 1;
      }
      follower = { ...follower, cursor };
      ws.serializeAttachment(follower);
    }
  }
}

function storageConnection(storage: DurableObjectStorage): SqliteConnection {
  return {
    query: (sql, ...params) => storage.sql.exec(sql, ...params).toArray(),
    iterate: (sql, ...params) => storage.sql.exec(sql, ...params),
    transaction: (work) => storage.transactionSync(work),
  };
}
