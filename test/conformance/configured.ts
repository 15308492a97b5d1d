import type { ConformanceOptions } from "./suite.ts";

/**
 * A configuration that moves every contract setting off its default, small enough that the suite
 * can fill the list to MAX_TASKS. The same values go into the environment and into the suite's options.
 */
export const CONFIGURED_ENV = {
  BASE_PATH: "/api/v1",
  MAX_BODY_BYTES: "4096",
  MAX_TASKS: "250",
  CORS_ORIGINS: "https://app.example.com, https://admin.example.com",
} as const;

/** What the suite is told about a target started with {@link CONFIGURED_ENV}. */
export const CONFIGURED_OPTIONS: ConformanceOptions = {
  basePath: CONFIGURED_ENV.BASE_PATH,
  maxBodyBytes: Number(CONFIGURED_ENV.MAX_BODY_BYTES),
  maxTasks: Number(CONFIGURED_ENV.MAX_TASKS),
  corsOrigins: CONFIGURED_ENV.CORS_ORIGINS.split(",").map((origin) => origin.trim()),
};
