// What a GET of the list asks for in its query: the tasks after an id, in one state, at most so
// many; and the Link to the page after a page cut by `limit`.
import type { Context } from "hono";
import { apiError } from "../errors.ts";
import type { AppEnv } from "../http/request-context.ts";
import type { PageQuery } from "../list/list-page.ts";
import { parseCursor } from "../live/cursor.ts";
import { BAD_COMPLETED, badLimit } from "../messages.ts";

/** The most tasks one page may ask for. */
export const MAX_LIMIT = 10_000;
/** 1 to 10000 written as the list writes numbers: no sign, no leading zero. */
const LIMIT = /^[1-9]\d{0,4}$/;

/**
 * The list's query parameters: `after` (a cursor), `completed` (true or false) and `limit` (1 to
 * {@link MAX_LIMIT}), each optional; a malformed one, or `completed` or `limit` given twice, gets 400.
 */
export function listQuery(c: Context<AppEnv>): PageQuery {
  const after = parseCursor(c.req.query("after"), "after", "task id") ?? 0;
  // Most reads, polls among them, carry no query string: then there is nothing more to read.
  if (!c.req.url.includes("?")) return { after };
  return { after, completed: completedOf(c.req.queries("completed")), limit: limitOf(c.req.queries("limit")) };
}

function completedOf(values: string[] | undefined): boolean | undefined {
  if (values === undefined) return undefined;
  if (values.length !== 1 || (values[0] !== "true" && values[0] !== "false")) throw apiError(400, BAD_COMPLETED);
  return values[0] === "true";
}

function limitOf(values: string[] | undefined): number | undefined {
  if (values === undefined) return undefined;
  const [value] = values;
  if (values.length !== 1 || value === undefined || !LIMIT.test(value) || Number(value) > MAX_LIMIT) {
    throw apiError(400, badLimit(MAX_LIMIT));
  }
  return Number(value);
}

/**
 * The Link header's value that points at the page after one whose last task is `last`: the path the
 * client asked (its base path, and /tasks or /index.php), `after` moved on, the other parameters kept.
 */
export function nextLink(path: string, query: PageQuery, last: number): string {
  const limit = query.limit === undefined ? "" : `&limit=${query.limit}`;
  const completed = query.completed === undefined ? "" : `&completed=${query.completed}`;
  return `<${path}?after=${last}${limit}${completed}>; rel="next"`;
}
