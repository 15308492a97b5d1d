import type { ConformanceOptions } from "./suite.ts";

const READ_TOKEN = "conformance-read-0123456789";
const WRITE_TOKEN = "conformance-write-0123456789";

/**
 * A configuration that moves every contract setting off its default, small enough that the suite
 * can fill the list to MAX_TASKS. The same values go into the environment and into the suite's
 * options. MAX_LIST_BYTES is moved too, but stays out of reach here: the runs with the default
 * configuration fill the list to its bytes.
 */
export const CONFIGURED_ENV = {
  BASE_PATH: "/api/v1",
  MAX_BODY_BYTES: "4096",
  MAX_TASKS: "250",
  MAX_LIST_BYTES: "4194304",
  CORS_ORIGINS: "https://app.example.com, https://admin.example.com",
  LOG_LEVEL: "debug",
  READ_TOKENS: `${READ_TOKEN},another-read-token-0123`,
  WRITE_TOKENS: `another-write-token-0123, ${WRITE_TOKEN}`,
  MAX_SUBSCRIBERS: "10",
  MAX_IDEMPOTENCY_KEYS: "3",
} as const;

/** What the suite is told about a target started with {@link CONFIGURED_ENV}. */
export const CONFIGURED_OPTIONS: ConformanceOptions = {
  basePath: CONFIGURED_ENV.BASE_PATH,
  maxBodyBytes: Number(CONFIGURED_ENV.MAX_BODY_BYTES),
  maxTasks: Number(CONFIGURED_ENV.MAX_TASKS),
  corsOrigins: CONFIGURED_ENV.CORS_ORIGINS.split(",").map((origin) => origin.trim()),
  tokens: { read: READ_TOKEN, write: WRITE_TOKEN },
  maxSubscribers: Number(CONFIGURED_ENV.MAX_SUBSCRIBERS),
  maxIdempotencyKeys: Number(CONFIGURED_ENV.MAX_IDEMPOTENCY_KEYS),
  otherWriteToken: "another-write-token-0123",
};

/** The tokens of {@link CONFIGURED_ENV}, every one of which must stay out of logs and answers. */
export const CONFIGURED_TOKENS = [
  ...CONFIGURED_ENV.READ_TOKENS.split(","),
  ...CONFIGURED_ENV.WRITE_TOKENS.split(","),
].map((token) => token.trim());

/**
 * The MAX_LIST_BYTES a list is filled to where the default 16 MiB is shown elsewhere: in-process
 * with the memory store (test/unit), PostgreSQL (test/postgres/conformance.test.ts, which brings a
 * process's copy up to date in 4 MiB parts) and the Durable Object (test/workers, whose RPC and row
 * limits are the tightest), and past it by lists made before the limit existed. Elsewhere the same
 * code needs only a list of a few large tasks, already sent as parts as a default-sized one is.
 */
export const FILLED_LIST = { env: { MAX_LIST_BYTES: String(1024 * 1024) }, maxListBytes: 1024 * 1024 } as const;
