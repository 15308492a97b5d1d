// READ_TOKENS and WRITE_TOKENS, and the keys of each list: Hono's bearer-auth in front of the
// list's routes, responding as the contract says.
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { apiError } from "../errors.ts";
import { type KeyNeed, keyDecision, type ListKey } from "../list/list-keys.ts";
import { KEY_NOT_FOR_LIST, KEY_READ_ONLY, NO_TOKEN, READ_ONLY, UNKNOWN_TOKEN } from "../messages.ts";
import { errorResponse } from "./error-response.ts";
import type { Sha256 } from "./idempotency.ts";
import type { AppEnv } from "./request-context.ts";

const REALM = "tasks";
const CHALLENGE = `Bearer realm="${REALM}"`;
const INVALID_TOKEN = `${CHALLENGE}, error="invalid_token"`;

/** The key of the request's list whose SHA-256 (hex) is `hash`, if it has one: looked up, never compared. */
export type KeyLookup = (c: Context<AppEnv>, hash: string) => ListKey | undefined | Promise<ListKey | undefined>;

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
 * `sha256` hashes the presented token once, for the tokens and the list's keys alike.
 */
export function accessGuards(
  readTokens: readonly string[],
  writeTokens: readonly string[],
  keyOf: KeyLookup,
  sha256: Sha256,
): AccessGuards {
  const made = new Map<string, MiddlewareHandler>();
  return (access, need) => {
    if ((access === "read" ? readTokens : writeTokens).length === 0) return undefined;
    const id = `${access} ${need}`;
    let check = made.get(id);
    if (check === undefined) {
      check =
        access === "read"
          ? guard([...readTokens, ...writeTokens], [], need, keyOf, sha256)
          : guard(writeTokens, readTokens, need, keyOf, sha256);
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
  sha256: Sha256,
): MiddlewareHandler {
  // Hashed on the first request: on Workers, Web Crypto is the only SHA-256, and it is asynchronous.
  let hashes: Promise<[readonly string[], readonly string[]]> | undefined;
  return bearerAuth({
    realm: REALM,
    verifyToken: async (token, c: Context<AppEnv>) => {
      hashes ??= Promise.all([Promise.all(allowed.map(sha256)), Promise.all(readOnly.map(sha256))]);
      const [allowedHashes, readOnlyHashes] = await hashes;
      const hash = await sha256(token);
      if (knows(allowedHashes, hash)) return true;
      if (knows(readOnlyHashes, hash)) throw apiError(403, READ_ONLY);
      if (need === undefined) return false;
      const key = await keyOf(c, hash);
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

/**
 * Whether `hash` is one of the known tokens' hashes, compared in constant time with each and without
 * stopping at a match. Comparing SHA-256 hashes is what Hono's timingSafeEqual does, with both sides
 * hashed on every call; here each known token is hashed once, and the presented one once a request.
 */
function knows(hashes: readonly string[], hash: string): boolean {
  let known = false;
  for (const candidate of hashes) {
    let differs = candidate.length ^ hash.length;
    for (let i = 0; i < hash.length; i++) differs |= candidate.charCodeAt(i) ^ hash.charCodeAt(i);
    if (differs === 0) known = true;
  }
  return known;
}

function sentBearer(c: Context): boolean {
  return /^bearer\s/i.test(c.req.header("Authorization") ?? "");
}
