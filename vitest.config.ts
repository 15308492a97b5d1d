import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Request logs and server output are shown for failing tests only.
    silent: "passed-only",
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: { name: "workers", include: ["test/workers/**/*.test.ts"], exclude: ["test/workers/durable*.test.ts"] },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml", environment: "durable" } })],
        test: { name: "workers-durable", include: ["test/workers/durable*.test.ts"] },
      },
      {
        test: {
          name: "sqlite",
          include: ["test/sqlite/**/*.test.ts"],
          // Each file starts real server processes; one at a time suits CI's two cores.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "postgres",
          include: ["test/postgres/**/*.test.ts"],
          // One throwaway PostgreSQL server for the project; each file keeps its lists in schemas of its own.
          globalSetup: ["test/postgres/global-setup.ts"],
          // Each file starts real server processes; one at a time suits CI's two cores.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "conformance",
          include: ["test/conformance/**/*.test.ts"],
          // One runtime's servers at a time: each file starts real processes, and CI has two cores.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "load",
          include: ["test/load/**/*.test.ts"],
          // One runtime at a time: each file loads real servers, and two loads at once would share two cores.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
