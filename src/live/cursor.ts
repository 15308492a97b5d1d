// A reader's cursor: a number, the change number of the last event a subscriber has, or the id of
// the last task a poller has (`GET /tasks?after=N`).
import { apiError } from "../errors.ts";
import { badCursor } from "../messages.ts";

/** At most 15 digits: every such number is exact as a JavaScript number, and ids and change numbers stay below it (a restored list starts its change numbers near 2 × 10¹⁴). */
const CURSOR = /^\d{1,15}$/;

/**
 * Reads a cursor sent as `name` (the `after` parameter or the `Last-Event-ID` header), which
 * `counts` task ids or change numbers, or undefined when it was not sent; anything but a whole
 * number of at most 15 digits gets 400.
 */
export function parseCursor(
  value: string | undefined,
  name: "after" | "Last-Event-ID",
  counts: "task id" | "change number",
): number | undefined {
  if (value === undefined) return undefined;
  if (!CURSOR.test(value)) throw apiError(400, badCursor(name, counts));
  return Number(value);
}
