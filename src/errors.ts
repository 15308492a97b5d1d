// The errors the service knows by name: a setting it cannot use, a store it cannot reach, and a
// response the contract names. Everything else is unexpected and gets 500.
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** A setting that cannot be used; the message names the variable and what it expected. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * The store cannot be reached (a database down, a connection lost). A store throws it rather than
 * a driver's own error, so the app responds 503 with Retry-After instead of 500: the fault is
 * passing, and the service recovers by itself when the store is back.
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}

/** An error the contract names, with the headers its response carries beside the message. */
export class ApiError extends HTTPException {
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: ContentfulStatusCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(status, { message });
    this.headers = headers;
  }
}

/** An error the contract names: its response has its status, `{"message": ...}` and `headers`. */
export function apiError(
  status: ContentfulStatusCode,
  message: string,
  headers?: Readonly<Record<string, string>>,
): HTTPException {
  return new ApiError(status, message, headers);
}
