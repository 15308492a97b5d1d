import { chromiumMissing } from "./chromium.ts";

// Run by `npm run test:browser` before vitest, so that a machine without Chromium gets one clear
// message instead of a failure per test.
const missing = chromiumMissing();
if (missing !== undefined) {
  console.error(missing);
  process.exit(1);
}
