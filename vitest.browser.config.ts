import { defineConfig } from "vitest/config";

// The end-to-end tests in a real browser: `npm run test:browser`. Kept out of vitest.config.ts so
// that `npm test` needs nothing but `npm install`.
export default defineConfig({
  test: {
    name: "browser",
    include: ["test/browser/**/*.test.ts"],
    silent: "passed-only",
    // Each file starts real servers and a browser; one at a time suits CI's two cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A page on a busy machine can take seconds to show what a poll waits for: vitest's 1 s failed it.
    expect: { poll: { timeout: 20_000 } },
  },
});
