import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

const encoder = new TextEncoder();

/** An error the contract names: answered with its status and `{"message": ...}`. */
export function apiError(status: ContentfulStatusCode, message: string): HTTPException {
  return new HTTPException(status, { message });
}

/** The contract's error answer: `{"message": ...}` as JSON, with its length. */
export function errorResponse(status: ContentfulStatusCode, message: string): Response {
  const body = encoder.encode(JSON.stringify({ message }));
  return new Response(body, {
    status,
    headers: { "Content-Type": "application/json", "Content-Length": String(body.byteLength) },
  });
}

/** The 400 for a POST that lacks `title` or `completed`; its text is fixed by the specification. */
export const MISSING_FIELD_MESSAGE = "Title or completed status is missing";

/** The 503 message of a store that cannot be reached; the answer carries Retry-After. */
export const STORE_UNAVAILABLE_MESSAGE = "Task list store cannot be reached: try again in a moment";
