// What every WebSocket subscriber is held to, on every runtime and in the Durable Object: close
// codes, how much a socket holds unsent, how big a message it may send, how often it is pinged.

/** Bytes a socket holds unsent before the feed waits for the subscriber to read. */
export const SOCKET_MARK_BYTES = 64 * 1024;
/** How often a full socket is looked at again: WebSockets say how much they hold, not when it drains. */
export const DRAIN_POLL_MS = 10;
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

/** "Normal closure": the close code once a subscriber's list was deleted; it has nothing more to follow. */
export const NORMAL_CLOSURE = 1000;
/** "Going away": the close code for subscribers of a server that is stopping. */
export const GOING_AWAY = 1001;
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
