// The WebSocket subscribers a list's Durable Object holds through the Hibernation API: admitted
// with their cursor, fed each change, caught up in batches, and told when their list is deleted or
// the key they came with is revoked or expires.
import { eventText, GONE_TEXT, RESET_TEXT, REVOKED_TEXT } from "../../list/event-text.ts";
import type { HeldList } from "../../list/held-list.ts";
import { FOLLOWER_CUT_OFF_BYTES } from "../../list/limits.ts";
import type { ListKey } from "../../list/list-keys.ts";
import { LIST_DELETED, TOO_MANY_SUBSCRIBERS } from "../../messages.ts";
import * as rules from "../../socket-rules.ts";

/**
 * What waits unsent on a socket. workerd has no `bufferedAmount` yet (cloudflare/workerd#988),
 * though its types declare one: read as 0, so each event goes out at once and a socket whose
 * client stopped reading is never found behind (docs/live-changes.md).
 */
function queued(ws: WebSocket): number {
  return ws.bufferedAmount ?? 0;
}

/**
 * How long a socket of a deleted list has to answer the object's close before its connection is
 * ended anyway (RFC 6455 §7.1.1 lets a server close the connection once it has sent its close).
 */
const CLOSE_REPLY_MS = 5000;
/** Why the object of a deleted list resets itself, as the platform logs it. */
const LET_GO_REASON = "The list was deleted: the object resets to end its subscribers' connections";

/** What the object keeps with each subscriber's socket, across hibernation. */
interface Follower {
  /** The change number of the last event sent to it (while it is not {@link live}). */
  readonly cursor: number;
  /** The list's last change when it came: changes after it are new, and count towards cutting it off. */
  readonly backlogEnd: number;
  /**
   * It has every change up to the list's last: each change is sent to it as it is made. Its
   * attachment then stays as it is from change to change, so a change writes none.
   */
  readonly live?: true;
  /** When the key it came with expires, in ms since the epoch: the object's alarm revokes it then. */
  readonly expires?: number;
}

/** The tag of the sockets that came with key `id`, so that its revocation finds them. */
function keyTag(id: string): string {
  return `key:${id}`;
}

/** The sockets of one object's list, which `list` gives as it is now (undefined once deleted). */
export class ListSockets {
  readonly #ctx: DurableObjectState;
  readonly #list: () => HeldList | undefined;
  /** Sockets whose catch-up goes on in a later turn: a change does not start a second one. */
  readonly #catchingUp = new Set<WebSocket>();
  /** Each socket's attachment as last read or written while the object is awake, so a change reads none. */
  readonly #followers = new WeakMap<WebSocket, Follower>();

  constructor(ctx: DurableObjectState, list: () => HeldList | undefined) {
    this.#ctx = ctx;
    this.#list = list;
  }

  /**
   * Takes a subscriber at `cursor` unless `max` already follow the list: one text message per task
   * after the cursor, then one per change; with the `key` it came with, until that is revoked or expires.
   */
  async admit(list: HeldList, cursor: number, max: number, key?: ListKey): Promise<Response> {
    if (this.#ctx.getWebSockets().length >= max) {
      return Response.json({ message: TOO_MANY_SUBSCRIBERS }, { status: 503, headers: { "Retry-After": "1" } });
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.#ctx.acceptWebSocket(server, key === undefined ? [] : [keyTag(key.id)]);
    const expires = key?.expires == null ? undefined : Date.parse(key.expires);
    this.#keep(server, { cursor, backlogEnd: list.change, ...(expires === undefined ? {} : { expires }) });
    this.#feed(server);
    if (expires !== undefined) await this.#wakeAt(expires);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Tells every socket that came with key `id` it was revoked, and closes it. */
  revoked(id: string): void {
    for (const ws of this.#ctx.getWebSockets(keyTag(id))) this.#revoke(ws);
  }

  /** Revokes the sockets whose key expired by `now`, and wakes the object again at the next expiry. */
  async expire(now: number): Promise<void> {
    let next: number | undefined;
    for (const ws of this.#ctx.getWebSockets()) {
      const { expires } = this.#follower(ws);
      if (expires === undefined || ws.readyState !== WebSocket.OPEN) continue;
      if (expires <= now) this.#revoke(ws);
      else next = Math.min(next ?? expires, expires);
    }
    if (next !== undefined) await this.#wakeAt(next);
  }

  #revoke(ws: WebSocket): void {
    this.#catchingUp.delete(ws);
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(REVOKED_TEXT);
    ws.close(rules.POLICY_VIOLATION, rules.KEY_REVOKED);
  }

  /** Sets the object's alarm to `at`, unless it is already set sooner. */
  async #wakeAt(at: number): Promise<void> {
    const set = await this.#ctx.storage.getAlarm();
    if (set === null || set > at) await this.#ctx.storage.setAlarm(at);
  }

  /**
   * Feeds every socket the change `list` just made after change `before`: one at the end gets it as
   * it is (its message made once for all of them), one still catching up reads on.
   */
  changed(list: HeldList, before: number): void {
    const sockets = this.#ctx.getWebSockets();
    if (sockets.length === 0) return;
    // The change just made, from the list's journal: no version is read to find it.
    const event = list.lastChange;
    const text = event === undefined || event.change <= before ? undefined : eventText(event);
    for (const ws of sockets) {
      const follower = this.#follower(ws);
      if (follower.live === true) {
        if (text !== undefined && queued(ws) < rules.SOCKET_MARK_BYTES) {
          ws.send(text);
          continue;
        }
        // It missed this change: from here on it is fed from its cursor.
        this.#keep(ws, { cursor: before, backlogEnd: follower.backlogEnd });
      }
      if (!this.#catchingUp.has(ws)) this.#feed(ws);
    }
  }

  /**
   * Tells every socket its list was deleted, and closes it; the object lets go of their connections
   * once each has answered the close, or after {@link CLOSE_REPLY_MS} (see {@link #letGo}).
   */
  gone(): void {
    const sockets = this.#ctx.getWebSockets();
    for (const ws of sockets) {
      this.#catchingUp.delete(ws);
      if (ws.readyState !== WebSocket.OPEN) continue;
      ws.send(GONE_TEXT);
      ws.close(rules.NORMAL_CLOSURE, LIST_DELETED);
    }
    if (sockets.length > 0) setTimeout(() => this.#letGo(), CLOSE_REPLY_MS);
  }

  /** A socket's close was answered: once every socket of a deleted list has answered, they are let go of. */
  closed(): void {
    if (this.#ctx.getWebSockets().every((ws) => ws.readyState === WebSocket.CLOSED)) this.#letGo();
  }

  /**
   * Ends the connections of a deleted list's sockets by resetting the object. workerd keeps the
   * connection of a socket whose close the object started, even once the close is answered, until
   * the isolate collects the socket or the object leaves memory (10 s after its last request), and
   * no call on the socket ends it sooner: the subscriber's stream would stay open that long. A list
   * made again meanwhile keeps its object and its sockets.
   */
  #letGo(): void {
    if (this.#list() !== undefined) return;
    try {
      this.#ctx.abort(LET_GO_REASON);
    } catch {
      // abort() throws to stop its caller: this one has nothing left to do.
    }
  }

  /**
   * Sends `ws` the events after its cursor, about 64 KiB of them a turn while it takes them (a reset
   * and the whole list when the cursor cannot be brought up to date); a socket that holds too much
   * is looked at again shortly, and cut off once more than {@link FOLLOWER_CUT_OFF_BYTES} of new
   * changes wait.
   */
  #feed(ws: WebSocket): void {
    this.#catchingUp.delete(ws);
    const list = this.#list();
    if (ws.readyState !== WebSocket.OPEN || list === undefined) return;
    const follower = this.#follower(ws);
    if (follower.live === true) return;
    if (follower.cursor === list.change) {
      this.#keep(ws, { ...follower, live: true });
      return;
    }
    const { backlogEnd, expires } = follower;
    if (queued(ws) >= rules.SOCKET_MARK_BYTES) {
      if (list.read().bytesChangedAfter(Math.max(follower.cursor, follower.backlogEnd)) > FOLLOWER_CUT_OFF_BYTES) {
        ws.close(rules.TRY_AGAIN_LATER, rules.TOO_FAR_BEHIND);
      } else {
        this.#catchingUp.add(ws);
        setTimeout(() => this.#feed(ws), rules.DRAIN_POLL_MS);
      }
      return;
    }
    // Its backlog one event per task, then every change as it was made.
    const version = list.read();
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
    const kept = { cursor, backlogEnd, ...(expires === undefined ? {} : { expires }) };
    this.#keep(ws, cursor === version.change ? { ...kept, live: true } : kept);
    // The rest in later turns, so that the object answers other requests between two batches.
    if (cursor !== version.change) {
      this.#catchingUp.add(ws);
      setTimeout(() => this.#feed(ws), 0);
    }
  }

  /** What `ws`'s attachment holds: read once while the object is awake. */
  #follower(ws: WebSocket): Follower {
    let follower = this.#followers.get(ws);
    if (follower === undefined) {
      follower = ws.deserializeAttachment() as Follower;
      this.#followers.set(ws, follower);
    }
    return follower;
  }

  /** Writes `follower` to `ws`'s attachment, which outlives the object's memory. */
  #keep(ws: WebSocket, follower: Follower): void {
    ws.serializeAttachment(follower);
    this.#followers.set(ws, follower);
  }
}
