import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** An error the contract names: answered with its status and `{"message": ...}`. */
export function apiError(status: ContentfulStatusCode, message: string): HTTPException {
  return new HTTPException(status, { message });
}

/** The 400 for a POST that lacks `title` or `completed`; its text is fixed by the specification. */
export const MISSING_FIELD_MESSAGE = "Title or completed status is missing";
