// READ_TOKENS and WRITE_TOKENS: Hono's bearer-auth in front of the list's routes, responding as
// the contract says.
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { timingSafeEqual } from "hono/utils/buffer";
import { apiError } from "../errors.ts";
import { NO_TOKEN, READ_ONLY, UNKNOWN_TOKEN } from "../messages.ts";
import { errorResponse } from "./error-response.ts";

const REALM = "tasks";
const CHALLENGE = `Bearer realm="${REALM}"`;
const INVALID_TOKEN = `${CHALLENGE}, error="invalid_token"`;

/** The checks in front of the list's routes; a route without one is open to anyone. */
export interface AccessGuards {
  readonly read?: MiddlewareHandler;
  readonly write?: MiddlewareHandler;
}

/**
 * Guards for READ_TOKENS and WRITE_TOKENS: when a list is set, its routes need one of its tokens
 * (a write token may also read). A read token on a write gets 403; no token or an unknown one
 * gets 401 with a Bearer challenge. They run before the body is read.
 */
export function accessGuards(readTokens: readonly string[], writeTokens: readonly string[]): AccessGuards {
  return {
    ...(readTokens.length > 0 ? { read: guard([...readTokens, ...writeTokens], []) } : {}),
    ...(writeTokens.length > 0 ? { write: guard(writeTokens, readTokens) } : {}),
  };
}

/** Hono's bearer-auth, responding as the contract says: JSON messages, and 401 where Hono would say 400. */
function guard(allowed: readonly string[], readOnly: readonly string[]): MiddlewareHandler {
  return bearerAuth({
    realm: REALM,
    verifyToken: async (token) => {
      if (await knows(allowed, token)) return true;
      if (await knows(readOnly, token)) throw apiError(403, READ_ONLY);
      return false;
    },
    noAuthenticationHeader: {
      wwwAuthenticateHeader: CHALLENGE,
      message: () => errorResponse(401, NO_TOKEN),
    },
    // Hono responds 400 to an Authorization header without a well-formed bearer token. The contract
    // counts another scheme as no token, and a malformed bearer token as one it does not know.
    invalidAuthenticationHeader: {
      wwwAuthenticateHeader: (c) => (sentBearer(c) ? INVALID_TOKEN : CHALLENGE),
      message: (c) => errorResponse(401, sentBearer(c) ? UNKNOWN_TOKEN : NO_TOKEN),
    },
    invalidToken: {
      wwwAuthenticateHeader: INVALID_TOKEN,
      message: () => errorResponse(401, UNKNOWN_TOKEN),
    },
  });
}

/** Compares `token` with every known one, in constant time for each and without stopping at a match. */
async function knows(tokens: readonly string[], token: string): Promise<boolean> {
  let known = false;
  for (const candidate of tokens) {
    if (await timingSafeEqual(candidate, token)) known = true;
  }
  return known;
}

function sentBearer(c: Context): boolean {
  return /^bearer\s/i.test(c.req.header("Authorization") ?? "");
}
