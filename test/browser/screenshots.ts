// The screenshots docs/home-page.md shows, taken by the browser tests and kept when UPDATE_SCREENSHOTS=1.
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Page } from "playwright-core";

/** `UPDATE_SCREENSHOTS=1 npm run test:browser` rewrites the screenshots the documentation shows. */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === "1" ? resolve(import.meta.dirname, "../../docs") : undefined;

/**
 * Takes a screenshot of the whole page, kept in docs/ as `name` when UPDATE_SCREENSHOTS=1: with no
 * task under the mouse and, unless `keepFocus` (a field opened on purpose), nothing focused, as the
 * page is when a person looks at it (the new-task field has the focus on load).
 */
export async function screenshot(page: Page, name: string, keepFocus = false): Promise<void> {
  if (!keepFocus) await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.mouse.move(0, 0);
  const shot = await page.screenshot({ fullPage: true });
  if (SCREENSHOTS === undefined) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  writeFileSync(resolve(SCREENSHOTS, name), shot);
}
