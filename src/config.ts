import { LOG_LEVELS, type LogLevel } from "./request-log.ts";

/** Settings of the HTTP app, read once from the environment at start. */
export interface AppConfig {
  /** Prefix of every path, without a trailing slash; "" for none. */
  readonly basePath: string;
  readonly maxBodyBytes: number;
  readonly maxTasks: number;
  /** Origins allowed by CORS: "*" for any, a list, or undefined when CORS is off. */
  readonly corsOrigins: "*" | readonly string[] | undefined;
  readonly logLevel: LogLevel;
}

/** Where a self-hosted server listens. */
export interface ListenConfig {
  readonly port: number;
  readonly host: string;
}

/** The environment as each runtime hands it over: Workers `env`, or the process environment. */
export type EnvRecord = Readonly<Record<string, unknown>>;

/** A setting that cannot be used; the message names the variable and what it expected. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const MIB = 1024 * 1024;

/** Reads and validates the app's settings; throws {@link ConfigError} on the first bad value. */
export function parseAppConfig(env: EnvRecord): AppConfig {
  return {
    basePath: parseBasePath(env),
    maxBodyBytes: parseCount(env, "MAX_BODY_BYTES", MIB, 1),
    maxTasks: parseCount(env, "MAX_TASKS", 100_000, 1),
    corsOrigins: parseCorsOrigins(env),
    logLevel: parseChoice(env, "LOG_LEVEL", LOG_LEVELS),
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

function parseCount(
  env: EnvRecord,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
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
