// Idempotency-Key on a POST (the IETF draft "The Idempotency-Key HTTP Header Field"): read and
// checked, and made into what the store remembers: whose key, the key, and a hash of the task.
import type { Context } from "hono";
import type { IdempotencyKey } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { type NewTask, TASK_FIELDS } from "../list/task.ts";
import { BAD_IDEMPOTENCY_KEY } from "../messages.ts";
import { type AppEnv, requestHeader } from "./request-context.ts";

/** 1 to 255 visible ASCII characters. */
const KEY = /^[\x21-\x7e]{1,255}$/;
const encoder = new TextEncoder();

/** Reads the request's Idempotency-Key, or undefined without one; a malformed one gets 400. */
export function idempotencyKeyOf(c: Context<AppEnv>): string | undefined {
  const key = requestHeader(c, "idempotency-key");
  if (key === undefined) return undefined;
  if (!KEY.test(key)) throw apiError(400, BAD_IDEMPOTENCY_KEY);
  return key;
}

/** SHA-256 of a text, in hex: synchronous where the runtime has one, else Web Crypto's. */
export type Sha256 = (text: string) => string | Promise<string>;

/**
 * What the store remembers of `key` for `task` (or a list's title): with write tokens each token
 * has keys of its own, so the scope is a hash of the request's bearer token (never the token itself).
 */
export function rememberedKey(
  c: Context,
  key: string,
  task: NewTask | { readonly title: string },
  tokensGuardWrites: boolean,
  sha256: Sha256 = webSha256,
): IdempotencyKey | Promise<IdempotencyKey> {
  const token = tokensGuardWrites ? (c.req.header("Authorization")?.replace(/^bearer\s+/i, "") ?? "") : undefined;
  const scope = token === undefined ? "" : sha256(token);
  const fingerprint = sha256(fingerprintText(task));
  if (typeof scope === "string" && typeof fingerprint === "string") return { scope, key, fingerprint };
  return Promise.all([scope, fingerprint]).then(([scope, fingerprint]) => ({ scope, key, fingerprint }));
}

/** Web Crypto's SHA-256, which every runtime has: asynchronous, and on Node and Deno about 20 µs of CPU a call. */
async function webSha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * What a key's fingerprint hashes: the values of the task's fields in their order, or a list's
 * title alone, so that the same key sent with another task or title is refused.
 */
function fingerprintText(task: Partial<NewTask>): string {
  return JSON.stringify(TASK_FIELDS.filter((field) => field.name in task).map((field) => task[field.name]));
}
