// What every WebSocket subscriber is held to, on every runtime and in the Durable Object: close
// codes, how much a socket holds unsent and how it is watched to drain, how big a message it may
// send, how often it is pinged.

/** Bytes a socket holds unsent before the feed waits for the subscriber to read. */
export const SOCKET_MARK_BYTES = 64 * 1024;
/** How often a full socket is looked at again: WebSockets say how much they hold, not when it drains. */
export const DRAIN_POLL_MS = 10;
/**
 * The longest a socket that stays full goes between two looks: each look that finds it still full
 * doubles the wait from {@link DRAIN_POLL_MS} up to this, so a thousand subscribers that stopped
 * reading cost a thousand looks a second, not a hundred thousand, and one that reads again is fed
 * within this.
 */
export const DRAIN_POLL_MAX_MS = 1000;
/**
 * The largest message a subscriber may send. The service reads none, so a few KiB is plenty; a
 * larger one closes the socket with {@link MESSAGE_TOO_BIG}, before it is gathered where the
 * runtime allows.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024;
/**
 * Seconds between the pings a server sends each subscriber; one that has not replied by the next
 * ping is dropped, so a subscriber that vanished without closing loses its slot within two of them.
 * The contract's length, which TIME_SCALE shortens for tests (src/time-rules.ts).
 */
export const PING_INTERVAL_S = 20;

const encoder = new TextEncoder();

/** A socket waiting to drain: what it holds unsent, when it is looked at next, and the wait after that. */
interface Draining {
  readonly held: () => number;
  readonly signal: AbortSignal;
  readonly done: () => void;
  at: number;
  waitMs: number;
}

// Sockets waiting to drain, looked at by one timer (a timer per socket costs each runtime far
// more): those full for a short while on their own times, those full for longer all at once every
// DRAIN_POLL_MAX_MS, so a crowd that stopped reading costs a look a second each.
const fresh = new Set<Draining>();
const stuck = new Set<Draining>();
let timer: ReturnType<typeof setTimeout> | undefined;
let timerAt = Number.POSITIVE_INFINITY;
let stuckLookAt = 0;

/** Whether `socket` is done waiting, telling it so when it is. */
function over(socket: Draining): boolean {
  if (!socket.signal.aborted && socket.held() >= SOCKET_MARK_BYTES) return false;
  socket.done();
  return true;
}

/** Sets the timer for `at`, unless it is set for sooner. */
function lookAgainAt(at: number): void {
  if (timer !== undefined && timerAt <= at) return;
  if (timer !== undefined) clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(lookAtDraining, Math.max(at - Date.now(), 0));
}

function lookAtDraining(): void {
  timer = undefined;
  timerAt = Number.POSITIVE_INFINITY;
  const now = Date.now();
  let next = Number.POSITIVE_INFINITY;
  for (const socket of fresh) {
    if (socket.at > now && !socket.signal.aborted) {
      next = Math.min(next, socket.at);
      continue;
    }
    if (over(socket)) {
      fresh.delete(socket);
      continue;
    }
    socket.at = now + socket.waitMs;
    socket.waitMs *= 2;
    if (socket.waitMs < DRAIN_POLL_MAX_MS) next = Math.min(next, socket.at);
    else {
      fresh.delete(socket);
      stuck.add(socket);
    }
  }
  if (now >= stuckLookAt) {
    stuckLookAt = now + DRAIN_POLL_MAX_MS;
    for (const socket of stuck) if (over(socket)) stuck.delete(socket);
  }
  if (stuck.size > 0) next = Math.min(next, stuckLookAt);
  // Looks a few ms apart are made at once: the first of them sets the time.
  if (next !== Number.POSITIVE_INFINITY) lookAgainAt(Math.max(next, now + DRAIN_POLL_MS));
}

/**
 * Resolves once `held()` (what a socket holds unsent) is under {@link SOCKET_MARK_BYTES}, or soon
 * after `signal` aborts; looked at after {@link DRAIN_POLL_MS}, then less and less often while it
 * stays full.
 */
export function drained(held: () => number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const at = Date.now() + DRAIN_POLL_MS;
    fresh.add({ held, signal, done, at, waitMs: DRAIN_POLL_MS * 2 });
    lookAgainAt(at);
  });
}

/** "Normal closure": the close code once a subscriber's list was deleted; it has nothing more to follow. */
export const NORMAL_CLOSURE = 1000;
/** "Going away": the close code for subscribers of a server that is stopping. */
export const GOING_AWAY = 1001;
/** The close code of a socket whose key was revoked or expired: what let it in no longer does. */
export const POLICY_VIOLATION = 1008;
/** The reason a socket whose key was revoked or expired closes with. */
export const KEY_REVOKED = "The key this subscription came with was revoked or expired";
/** "Message too big": the close code for a subscriber that sent more than {@link MAX_MESSAGE_BYTES}. */
export const MESSAGE_TOO_BIG = 1009;
/** "Try again later": a subscriber cut off for not reading, for a list that cannot be read, or past the limit. */
export const TRY_AGAIN_LATER = 1013;

/** The reason sent with {@link MESSAGE_TOO_BIG}. */
export const TOO_BIG_REASON = `Messages to this service are ignored: send none over ${MAX_MESSAGE_BYTES} bytes`;
/** The reason sent with {@link TRY_AGAIN_LATER} to a subscriber that fell too far behind. */
export const TOO_FAR_BEHIND = "Too far behind: connect again with your cursor";

/** Whether a received message is larger than {@link MAX_MESSAGE_BYTES}, whatever form the runtime gives it in. */
export function tooBig(data: unknown): boolean {
  if (typeof data === "string") {
    // No character takes fewer UTF-8 bytes than UTF-16 units, so a long string needs no encoding.
    return data.length > MAX_MESSAGE_BYTES || encoder.encode(data).byteLength > MAX_MESSAGE_BYTES;
  }
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength > MAX_MESSAGE_BYTES;
  if (data instanceof Blob) return data.size > MAX_MESSAGE_BYTES;
  return false;
}
