// Whether a request is a browser's for a page: its Accept prefers HTML to JSON, as a browser's
// navigation does; curl's `*/*` and API clients' `application/json` do not.
import type { Context } from "hono";
import { accepts } from "hono/accepts";

/** True when the request's Accept prefers text/html to application/json. */
export function wantsPage(c: Context): boolean {
  const chosen = accepts(c, {
    header: "Accept",
    supports: ["text/html", "application/json"],
    default: "application/json",
  });
  return chosen === "text/html";
}
