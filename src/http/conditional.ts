// Conditional GETs, decided in one place for the list, the home page and the OpenAPI document:
// 200 with the body and its ETag, or 304 with the ETag alone when the client holds it.
import type { Context } from "hono";
import { type AppEnv, type BodyParts, bytesResponse, requestHeader, respond } from "./request-context.ts";

/** Whether an `If-None-Match` header names `version` (quoted or not, weak or not) or is `*`. */
export function holdsVersion(ifNoneMatch: string | undefined, version: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(",").some((entry) => {
    const tag = entry.trim().replace(/^W\//, "");
    return tag === "*" || tag === version || tag === `"${version}"`;
  });
}

/**
 * Responds to a GET or HEAD of something whose content has `version`: 304 with its ETag when the
 * request's `If-None-Match` holds it, else 200 with `body()` (asked for only then) and `headers`.
 */
export function conditionalResponse(
  c: Context<AppEnv>,
  version: string,
  body: () => BodyParts,
  headers: Record<string, string>,
  contentType?: string,
): Response {
  const etag = `"${version}"`;
  headers.ETag = etag;
  const held = requestHeader(c, "if-none-match");
  // A client that polls sends back the ETag it was given as it was given: no need to parse the list.
  if (held === etag || holdsVersion(held, version)) return respond(c, 304, null, headers);
  return bytesResponse(c, body(), headers, contentType);
}
