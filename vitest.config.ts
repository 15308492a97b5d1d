import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/sequencer.ts";

// Bounds for a test and a hook in every project: far above what a correct test needs on a busy
// two-core machine, so a slower machine is never a failure; a hung test still ends.
const TIME_BOUNDS = { testTimeout: 180_000, hookTimeout: 240_000 };
// The files that start real servers keep nothing between them but those servers, which each file
// stops: a worker process runs one file after another, rather than a fresh one each file.
const REAL_SERVERS = { ...TIME_BOUNDS, isolate: false };

const WRANGLER_REQUEST_LINE = /^\[wrangler:info\] [A-Z]+ \//;

/**
 * workerd's lines for a deleted list's Durable Object resetting itself to end its subscribers'
 * connections (docs/cloudflare.md), which the workers pool prints straight from workerd as an
 * "uncaught exception" with workerd's stack: the tests of a list's end expect that reset, so a
 * passing run does not show them. Every other line of workerd's still shows.
 */
const OBJECT_RESET = /^uncaught exception; .*jsg\.Error: The list was deleted: the object resets/;
const WORKERD_STACK = /^stack: \S*workerd/;
const write = process.stdout.write.bind(process.stdout);
let afterReset = false;
process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  const hidden = OBJECT_RESET.test(text) || (afterReset && WORKERD_STACK.test(text));
  afterReset = OBJECT_RESET.test(text);
  return hidden || write(chunk, ...rest);
}) as typeof process.stdout.write;

export default defineConfig({
  test: {
    // Request logs and server output are shown for failing tests only.
    silent: "passed-only",
    // wrangler's own line per request repeats the Worker's JSON log line, which the tests keep.
    onConsoleLog: (log) => !WRANGLER_REQUEST_LINE.test(log),
    globalSetup: ["test/support/run-files.ts"],
    // Most files wait on the servers they start, so four at a time keep two cores busy.
    maxWorkers: 4,
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        // In-process tests share one module graph: a fresh one per file cost more than the tests.
        // --expose-gc: the live tests count what subscribers leave behind once collected. The
        // method tests send `patch` in lower case on purpose (it is not PATCH), which fetch warns of.
        test: {
          name: "unit",
          ...TIME_BOUNDS,
          include: ["test/unit/**/*.test.ts"],
          isolate: false,
          restoreMocks: true,
          execArgv: ["--expose-gc", "--disable-warning=UNDICI-FETCH-patch"],
        },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: {
          name: "workers",
          ...TIME_BOUNDS,
          include: ["test/workers/**/*.test.ts"],
          exclude: ["test/workers/durable*.test.ts"],
        },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml", environment: "durable" } })],
        test: { name: "workers-durable", ...TIME_BOUNDS, include: ["test/workers/durable*.test.ts"] },
      },
      {
        test: {
          name: "sqlite",
          include: ["test/sqlite/**/*.test.ts"],
          ...REAL_SERVERS,
        },
      },
      {
        test: {
          name: "postgres",
          include: ["test/postgres/**/*.test.ts"],
          // One throwaway PostgreSQL server for the project; each file keeps its lists in schemas of its own.
          globalSetup: ["test/postgres/global-setup.ts"],
          ...REAL_SERVERS,
        },
      },
      {
        test: {
          name: "conformance",
          include: ["test/conformance/**/*.test.ts"],
          ...REAL_SERVERS,
        },
      },
      {
        test: {
          name: "load",
          include: ["test/load/**/*.test.ts"],
          ...REAL_SERVERS,
        },
      },
    ],
  },
});
