// READ_TOKENS and WRITE_TOKENS, and the keys of each list: Hono's bearer-auth in front of the
// list's routes, responding as the contract says.
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { timingSafeEqual } from "hono/utils/buffer";
import { apiError } from "../errors.ts";
import { type KeyNeed, keyDecision, type ListKey } from "../list/list-keys.ts";
import { KEY_NOT_FOR_LIST, KEY_READ_ONLY, NO_TOKEN, READ_ONLY, UNKNOWN_TOKEN } from "../messages.ts";
import { errorResponse } from "./error-response.ts";
import type { AppEnv } from "./request-context.ts";

const REALM = "tasks";
const CHALLENGE = `Bearer realm="${REALM}"`;
const INVALID_TOKEN = `${CHALLENGE}, error="invalid_token"`;

/** The key of the request's list that `token` is, if it is one: looked up by its hash, never compared. */
export type KeyLookup = (c: Context<AppEnv>, token: string) => Promise<ListKey | undefined>;

/**
 * The check in front of a route that `access` guards, which a list key meeting `need` also passes
 * (none: no list key does); undefined where the deployment leaves the route open to anyone.
 */
export type AccessGuards = (access: "read" | "write", need: KeyNeed | undefined) => MiddlewareHandler | undefined;

/**
 * Guards for READ_TOKENS and WRITE_TOKENS: when a list is set, its routes need one of its tokens
 * (a write token may also read), or a key of the request's list that may do what the route does.
 * A read token on a write, or a list key on what its access does not open, gets 403; no token or
 * an unknown one (a key of another list, revoked or expired included) gets 401 with a Bearer
 * challenge. They run before the body is read; a key let in is noted in the request's state.
 */
export function accessGuards(
  readTokens: readonly string[],
  writeTokens: readonly string[],
  keyOf: KeyLookup,
): AccessGuards {
  const made = new Map<string, MiddlewareHandler>();
  return (access, need) => {
    if ((access === "read" ? readTokens : writeTokens).length === 0) return undefined;
    const id = `${access} ${need}`;
    let check = made.get(id);
    if (check === undefined) {
      check =
        access === "read"
          ? guard([...readTokens, ...writeTokens], [], need, keyOf)
          : guard(writeTokens, readTokens, need, keyOf);
      made.set(id, check);
    }
    return check;
  };
}

/** Hono's bearer-auth, responding as the contract says: JSON messages, and 401 where Hono would say 400. */
function guard(
  allowed: readonly string[],
  readOnly: readonly string[],
  need: KeyNeed | undefined,
  keyOf: KeyLookup,
): MiddlewareHandler {
  return bearerAuth({
    realm: REALM,
    verifyToken: async (token, c: Context<AppEnv>) => {
      if (await knows(allowed, token)) return true;
      if (await knows(readOnly, token)) throw apiError(403, READ_ONLY);
      if (need === undefined) return false;
      const key = await keyOf(c, token);
      const decision = keyDecision(key, need, Date.now());
      if (decision === "forbidden") throw apiError(403, need === "manage" ? KEY_NOT_FOR_LIST : KEY_READ_ONLY);
      if (decision === "unknown" || key === undefined) return false;
      c.get("requestState").key = key;
      return true;
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
