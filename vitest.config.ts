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
        test: { name: "workers", include: ["test/workers/**/*.test.ts"] },
      },
      {
        test: {
          name: "conformance",
          include: ["test/conformance/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
