// The contract's error responses: the app's onError, and the same JSON for Hono middleware that
// makes its own response.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, StoreUnavailableError } from "../errors.ts";
import { INTERNAL_ERROR, STORE_UNAVAILABLE } from "../messages.ts";
import { type AppEnv, jsonResponse } from "./request-context.ts";

const encoder = new TextEncoder();

/**
 * The app's error handler: the error's own status and message, 503 with Retry-After for a store
 * that cannot be reached, or a bare 500 for anything unexpected.
 */
export function onError(error: Error, c: Context<AppEnv>): Response {
  // Hono's own middleware (bearer-auth) throws with the response already made.
  if (error instanceof HTTPException && error.res !== undefined) return error.getResponse();
  if (error instanceof HTTPException && error.status !== 500) {
    // Every 503 says when to try again; a 408 leaves the rest of its body unread, so the connection ends.
    const extra: Record<string, string> =
      error.status === 503 ? { "Retry-After": "1" } : error.status === 408 ? { Connection: "close" } : {};
    if (error instanceof ApiError) Object.assign(extra, error.headers);
    return jsonResponse(c, error.status, JSON.stringify({ message: error.message }), extra);
  }
  if (error instanceof StoreUnavailableError) {
    return jsonResponse(c, 503, JSON.stringify({ message: STORE_UNAVAILABLE }), { "Retry-After": "1" });
  }
  return jsonResponse(c, 500, JSON.stringify({ message: INTERNAL_ERROR }));
}

/**
 * The contract's error response outside a request's context, for Hono middleware that wants a
 * Response of its own (bearer-auth): `{"message": ...}` as JSON, with its length.
 */
export function errorResponse(status: ContentfulStatusCode, message: string): Response {
  const body = encoder.encode(JSON.stringify({ message }));
  return new Response(body, {
    status,
    headers: { "Content-Type": "application/json", "Content-Length": String(body.byteLength) },
  });
}
