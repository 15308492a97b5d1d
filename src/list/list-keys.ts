// A list's keys, decided once for every store: what a new key may say, how it is made and shown,
// how many a list holds, and what a key presented on a request may do; stores keep only rows.
import { KEY_ACCESS, KEY_EXPIRES, KEY_EXPIRES_PAST, KEY_LABEL, NOT_A_KEY, unknownKeyField } from "../messages.ts";

/** What a key opens on its list: reading and following, or writing its tasks too. */
export type KeyAccess = "read" | "write";

/** A key as a store keeps it: never the key itself, only its SHA-256. */
export interface ListKey {
  readonly id: string;
  readonly access: KeyAccess;
  readonly label: string;
  /** When it stops opening the list, as an RFC 3339 date-time in UTC; null for never. */
  readonly expires: string | null;
  /** The key's SHA-256, in hex. */
  readonly hash: string;
}

/** What a POST of a key asks for. */
export interface NewListKey {
  readonly access: KeyAccess;
  readonly label: string;
  readonly expires: string | null;
}

/** How many keys a list holds at most: one more is refused. */
export const MAX_LIST_KEYS = 100;
/** Characters (code points) a key's label may have at most. */
export const MAX_KEY_LABEL = 100;
/** A key's id in a path, as a Hono parameter pattern. */
export const KEY_ID_PATTERN = "[a-z2-7]{16}";

const FIELDS = new Set(["access", "label", "expires"]);
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
const encoder = new TextEncoder();

/**
 * The key a parsed POST body asks for, or the message of the 400 that refuses it: an object of
 * `access` ("read" or "write"), an optional `label` (a string of at most 100 characters) and an
 * optional `expires` (an RFC 3339 date-time after `now`, or null), and nothing else.
 */
export function readNewKey(body: unknown, now: number): NewListKey | { readonly refused: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { refused: NOT_A_KEY };
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) if (!FIELDS.has(name)) return { refused: unknownKeyField(name) };
  const { access, label = "", expires = null } = fields;
  if (access !== "read" && access !== "write") return { refused: KEY_ACCESS };
  if (typeof label !== "string" || !label.isWellFormed() || [...label].length > MAX_KEY_LABEL) {
    return { refused: KEY_LABEL };
  }
  if (expires === null) return { access, label, expires: null };
  const at = typeof expires === "string" ? dateTime(expires) : undefined;
  if (at === undefined) return { refused: KEY_EXPIRES };
  if (at <= now) return { refused: KEY_EXPIRES_PAST };
  return { access, label, expires: new Date(at).toISOString() };
}

/** The milliseconds of an RFC 3339 date-time, or undefined for anything else (a 30 February included). */
function dateTime(text: string): number | undefined {
  const parts = RFC3339.exec(text);
  if (parts === null) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as number[];
  const daysInMonth = new Date(Date.UTC(year ?? 0, month ?? 0, 0)).getUTCDate();
  if (month === undefined || month < 1 || month > 12 || day === undefined || day < 1 || day > daysInMonth) {
    return undefined;
  }
  if ((hour ?? 24) > 23 || (minute ?? 60) > 59 || (second ?? 61) > 60) return undefined;
  const at = Date.parse(text.replace(/:60(?=[.Zz+-])/, ":59"));
  return Number.isNaN(at) ? undefined : at;
}

/**
 * What every key looks like: `lk_` and 256 random bits in base64url, all token68 characters. The
 * prefix tells a key apart from a list's name, which has no `_`, so a log can hide keys it meets.
 */
export const KEY_SHAPE = /lk_[A-Za-z0-9_-]{43}/g;

/** A new key for `request`: its row, and the key itself, shown once; its id has 80 random bits. */
export async function mintKey(request: NewListKey): Promise<{ readonly row: ListKey; readonly key: string }> {
  const key = `lk_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => BASE32[byte & 31]).join("");
  return { row: { id, ...request, hash: await keyHash(key) }, key };
}

/** The SHA-256 of a presented token, in hex: a key is looked up by it, so no key is compared character by character. */
export async function keyHash(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(token)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A key's JSON, `{"id","access","label","expires"}`, with `"key"` last when it is shown, the once it is made. */
export function keyJson(row: ListKey, key?: string): string {
  const shown = { id: row.id, access: row.access, label: row.label, expires: row.expires };
  return JSON.stringify(key === undefined ? shown : { ...shown, key });
}

/** The JSON array of a list's keys, oldest first, without the keys themselves. */
export function keysJson(rows: readonly ListKey[]): string {
  return `[${rows.map((row) => keyJson(row)).join(",")}]`;
}

/** Whether a key opens its list at `now`: until its expiry passes. */
export function keyLives(row: ListKey, now: number): boolean {
  return row.expires === null || Date.parse(row.expires) > now;
}

/**
 * What a list key may do on a route of its own list: `read` (reading and following) lets any
 * key in, `write` (a task's write) a write key only, and `manage` (the list itself and its keys)
 * no key. A key that may not is forbidden (403); one that no longer lives is unknown (401).
 */
export function keyDecision(row: ListKey | undefined, need: KeyNeed, now: number): "allowed" | "forbidden" | "unknown" {
  if (row === undefined || !keyLives(row, now)) return "unknown";
  if (need === "read" || (need === "write" && row.access === "write")) return "allowed";
  return "forbidden";
}

/** What a route of a list needs of a list key: see {@link keyDecision}. */
export type KeyNeed = "read" | "write" | "manage";

/**
 * A list's keys as a store holds them in memory, oldest first. A store decides here, persists
 * what was decided, then applies it, so a key it could not persist is not held.
 */
export class HeldKeys {
  readonly #rows: ListKey[];
  readonly #byHash = new Map<string, ListKey>();

  constructor(rows: readonly ListKey[] = []) {
    this.#rows = [...rows];
    for (const row of rows) this.#byHash.set(row.hash, row);
  }

  /** Every key, oldest first. */
  get rows(): readonly ListKey[] {
    return this.#rows;
  }

  /**
   * Adds `row` unless the list holds `max` keys already: kept by `keep` first, which throws, and
   * then the list does not hold it.
   */
  add(row: ListKey, max: number, keep: (row: ListKey) => void): { readonly outcome: "added" | "full" } {
    if (this.#rows.length >= max) return { outcome: "full" };
    keep(row);
    this.#rows.push(row);
    this.#byHash.set(row.hash, row);
    return { outcome: "added" };
  }

  /** Revokes key `id`: kept by `drop` first, which throws, and then the list still holds it. */
  remove(id: string, drop: (id: string) => void): { readonly outcome: "removed" | "not-found" } {
    const at = this.#rows.findIndex((row) => row.id === id);
    const row = this.#rows[at];
    if (row === undefined) return { outcome: "not-found" };
    drop(id);
    this.#rows.splice(at, 1);
    this.#byHash.delete(row.hash);
    return { outcome: "removed" };
  }

  /** The key with this hash, if the list holds it. */
  byHash(hash: string): ListKey | undefined {
    return this.#byHash.get(hash);
  }
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
