import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium. Nothing in these tests downloads a browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

// Headless, and off the network: no sign-in, sync, component or first-run traffic. As root,
// Chromium refuses to start with its sandbox.
const ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** When Chromium is missing, a message saying how to install it; otherwise undefined. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  return (
    `The browser tests drive Debian's Chromium at ${CHROMIUM_PATH}, which is not installed.\n` +
    "Install it with: apt-get update && apt-get install -y chromium (as root; with sudo otherwise)"
  );
}

/** A headless Chromium with a fresh profile of its own; `close` also deletes the profile. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const missing = chromiumMissing();
  if (missing !== undefined) throw new Error(missing);
  const profile = mkdtempSync(join(tmpdir(), "task-list-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      viewport: { width: 800, height: 640 },
      colorScheme: "light",
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
