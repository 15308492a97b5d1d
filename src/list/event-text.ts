// The text of a WebSocket message for each event of the live feed, the same from every store.
import type { ListEvent } from "./list-version.ts";

const decoder = new TextDecoder();

/** The message that tells a subscriber to drop what it holds: the whole list follows. */
export const RESET_TEXT = '{"event":"reset","data":{}}';
/** The message that tells a subscriber its list was deleted; the socket then closes. */
export const GONE_TEXT = '{"event":"gone","data":{}}';
/** The message that tells a subscriber the key it came with was revoked or expired; the socket then closes. */
export const REVOKED_TEXT = '{"event":"revoked","data":{}}';

/** An event as a WebSocket message: `{"id":<change number>,"event":"task"|"update"|"delete","data":...}`. */
export function eventText(event: ListEvent): string {
  return `{"id":${event.change},"event":"${event.event}","data":${decoder.decode(event.json)}}`;
}
