// The service's settings, read once from the environment at start and validated: a value that
// cannot be used stops the service with a message naming the variable.
import { ConfigError } from "./errors.ts";
import { type TimeRules, timeRules } from "./time-rules.ts";

const MIB = 1024 * 1024;

/** How much the service logs: every request from `info` down, client errors at `warn`, server errors at `error`. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

/** The levels `LOG_LEVEL` accepts, the default first. */
export const LOG_LEVELS = ["info", "debug", "warn", "error", "off"] as const satisfies readonly LogLevel[];

const SEVERITY: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

/** Whether a log at `setting` shows a line of `level`: `level` is at or above it. */
export function logShows(setting: LogLevel, level: Exclude<LogLevel, "off">): boolean {
  return SEVERITY[level] >= SEVERITY[setting];
}

/** The limits an append is checked against, in the same atomic step that adds the task. */
export interface ListLimits {
  /** Most tasks the list may hold (MAX_TASKS). */
  readonly maxTasks: number;
  /** Most bytes the list's JSON may take, brackets and commas included (MAX_LIST_BYTES). */
  readonly maxBytes: number;
  /** Most Idempotency-Keys the list remembers; the oldest is forgotten first (MAX_IDEMPOTENCY_KEYS). */
  readonly maxKeys: number;
}

/** Settings of the HTTP app, read once from the environment at start. */
export interface AppConfig {
  /** Prefix of every path, without a trailing slash; "" for none. */
  readonly basePath: string;
  readonly maxBodyBytes: number;
  readonly maxTasks: number;
  /** Most bytes the list's JSON may take; a POST that would take it further is refused. */
  readonly maxListBytes: number;
  /** Origins allowed by CORS: "*" for any, a list, or undefined when CORS is off. */
  readonly corsOrigins: "*" | readonly string[] | undefined;
  readonly logLevel: LogLevel;
  /** Bearer tokens that may read the list; empty when anyone may read. */
  readonly readTokens: readonly string[];
  /** Bearer tokens that may read and append; empty when anyone may append. */
  readonly writeTokens: readonly string[];
  /** Readers that may follow the list's changes at once in this process or isolate (MAX_SUBSCRIBERS). */
  readonly maxSubscribers: number;
  /** Idempotency-Keys the list remembers at most (MAX_IDEMPOTENCY_KEYS). */
  readonly maxIdempotencyKeys: number;
  /** Lists that may exist at once, the default one included (MAX_LISTS). */
  readonly maxLists: number;
  /** Pings, keep-alive comments and body silence: the contract's lengths, unless TIME_SCALE shortens them. */
  readonly timeRules: TimeRules;
}

/** Where the service runs, as far as limits go: the largest list and body its stores can take. */
export interface Platform {
  readonly name: string;
  readonly maxListBytes: number;
  readonly maxBodyBytes: number;
}

/**
 * Node, Bun and Deno hold the list in the process's memory and send it whole to every GET. A
 * gibibyte is far past any task list; the bound is there so that a slip of a few zeros is refused.
 */
export const SERVER_PLATFORM: Platform = {
  name: "Node, Bun and Deno",
  maxListBytes: 1024 * MIB,
  maxBodyBytes: Number.MAX_SAFE_INTEGER,
};

/**
 * A Worker isolate has 128 MB. It keeps the list (or, with the Durable Object, its copy of it) and
 * may hold one more task-sized RPC value while it catches up; 24 MiB leaves room for both and for
 * the runtime (docs/access-and-limits.md has the arithmetic). A Durable Object's SQLite holds rows
 * of at most 2 MB, and a row holds a task's JSON, never more than a few bytes past the body that
 * brought it: 1,900,000 bytes of body leave the rest of the row room, and keep a title under 4 MB as
 * RPC carries it (two bytes a character, at most), far under RPC's 32 MiB cap.
 */
export const WORKERS_PLATFORM: Platform = {
  name: "Cloudflare Workers",
  maxListBytes: 24 * MIB,
  maxBodyBytes: 1_900_000,
};

/** Where a self-hosted server listens. */
export interface ListenConfig {
  readonly port: number;
  readonly host: string;
}

/** The environment as each runtime hands it over: Workers `env`, or the process environment. */
export type EnvRecord = Readonly<Record<string, unknown>>;

/** The default MAX_LIST_BYTES: 16 MiB. */
export const DEFAULT_MAX_LIST_BYTES = 16 * MIB;
/** Characters of a bearer token (RFC 6750's token68), and the shortest token accepted. */
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;
const MIN_TOKEN_LENGTH = 16;

/**
 * Reads and validates the app's settings for `platform`; throws {@link ConfigError} on the first
 * bad value. The message names the variable and never shows a token.
 */
export function parseAppConfig(env: EnvRecord, platform: Platform = SERVER_PLATFORM): AppConfig {
  return {
    basePath: parseBasePath(env),
    maxBodyBytes: parseCount(env, "MAX_BODY_BYTES", MIB, 1, platform.maxBodyBytes, platform),
    maxTasks: parseCount(env, "MAX_TASKS", 100_000, 1),
    maxListBytes: parseCount(env, "MAX_LIST_BYTES", DEFAULT_MAX_LIST_BYTES, 2, platform.maxListBytes, platform),
    corsOrigins: parseCorsOrigins(env),
    logLevel: parseChoice(env, "LOG_LEVEL", LOG_LEVELS),
    readTokens: parseTokens(env, "READ_TOKENS"),
    writeTokens: parseTokens(env, "WRITE_TOKENS"),
    maxSubscribers: parseCount(env, "MAX_SUBSCRIBERS", 10_000, 0, 1_000_000),
    maxIdempotencyKeys: parseCount(env, "MAX_IDEMPOTENCY_KEYS", 10_000, 1, 1_000_000),
    maxLists: parseCount(env, "MAX_LISTS", 1_000, 1, 1_000_000),
    timeRules: timeRules(parseTimeScale(env)),
  };
}

/** Reads and validates `PORT` and `HOST` for the Node, Bun and Deno servers. */
export function parseListenConfig(env: EnvRecord): ListenConfig {
  const host = read(env, "HOST") ?? "127.0.0.1";
  // Servers take an IPv6 address bare: Node cannot resolve "[::1]".
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) {
    throw new ConfigError(
      `HOST must be a host name or IP address, with IPv6 written without brackets, got ${JSON.stringify(host)}`,
    );
  }
  return { port: parseCount(env, "PORT", 8787, 0, 65_535), host };
}

/**
 * Returns a variable's value as text, treating an empty string as unset. Numbers are taken as
 * written, since Workers hand over `MAX_TASKS = 10` in `[vars]` as a number.
 */
export function read(env: EnvRecord, name: string): string | undefined {
  const value = env[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") {
    throw new ConfigError(`${name} must be a string or a number, got ${typeof value}`);
  }
  return value;
}

/** Reads a variable that must be one of `choices`; the first is the default. */
export function parseChoice<T extends string>(env: EnvRecord, name: string, choices: readonly [T, ...T[]]): T {
  const value = read(env, name);
  if (value === undefined) return choices[0];
  const choice = choices.find((c) => c === value);
  if (choice === undefined) {
    throw new ConfigError(`${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(value)}`);
  }
  return choice;
}

/**
 * Reads a whole number from `min` to `max`, `fallback` when unset; the refusal names the variable,
 * the range and, when given, the platform whose limit the range is.
 */
export function parseCount(
  env: EnvRecord,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  platform?: Platform,
): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) {
    const where = platform === undefined ? "" : ` on ${platform.name}`;
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}${where}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * Reads TIME_SCALE, what the time rules are multiplied by: a number above 0 and at most 1, 1 when
 * unset. It is for tests, which wait a second for a rule of 20 s, so README does not list it.
 */
function parseTimeScale(env: EnvRecord): number {
  const value = read(env, "TIME_SCALE");
  if (value === undefined) return 1;
  const scale = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
  if (!(scale > 0 && scale <= 1)) {
    throw new ConfigError(
      `TIME_SCALE must be a number greater than 0 and at most 1, such as 0.05, got ${JSON.stringify(value)}`,
    );
  }
  return scale;
}

/** Reads a comma-separated list of bearer tokens; a refusal says which token is wrong, never what it is. */
function parseTokens(env: EnvRecord, name: string): readonly string[] {
  const value = read(env, name);
  if (value === undefined) return [];
  const tokens = value.split(",").map((token) => token.trim());
  tokens.forEach((token, index) => {
    const problem =
      token === ""
        ? "is empty"
        : !TOKEN.test(token)
          ? "has a character outside that set"
          : token.replace(/=+$/, "").length < MIN_TOKEN_LENGTH
            ? `has ${token.replace(/=+$/, "").length} characters before any = padding`
            : undefined;
    if (problem !== undefined) {
      throw new ConfigError(
        `${name} must be a comma-separated list of tokens of at least ${MIN_TOKEN_LENGTH} characters each before any = padding, made of letters, digits and -._~+/ with = only at the end, but token ${index + 1} of ${tokens.length} ${problem}`,
      );
    }
  });
  return tokens;
}

function parseBasePath(env: EnvRecord): string {
  const value = read(env, "BASE_PATH");
  if (value === undefined || value === "/") return "";
  // Only characters that are literal both in a URL and in a Hono route: ":" and "*" would make
  // patterns, "%" escapes would never match the decoded path, and dot segments are resolved away.
  if (!/^(\/(?!\.+(?:\/|$))[A-Za-z0-9._~-]+)+$/.test(value)) {
    throw new ConfigError(
      `BASE_PATH must be a path such as /api: "/" then letters, digits, ".", "_", "~" or "-" in each segment, and no "/" at the end, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function parseCorsOrigins(env: EnvRecord): AppConfig["corsOrigins"] {
  const value = read(env, "CORS_ORIGINS");
  if (value === undefined) return undefined;
  if (value.trim() === "*") return "*";
  return value.split(",").map((entry) => {
    const origin = entry.trim();
    if (!isOrigin(origin)) {
      throw new ConfigError(
        `CORS_ORIGINS must be "*" or a comma-separated list of origins such as https://app.example.com, got ${JSON.stringify(entry)}`,
      );
    }
    return origin;
  });
}

function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text;
  } catch {
    return false;
  }
}

/** The limits each append is checked against. */
export function listLimits(config: AppConfig): ListLimits {
  return { maxTasks: config.maxTasks, maxBytes: config.maxListBytes, maxKeys: config.maxIdempotencyKeys };
}
