// axe-core, run in a page of the browser tests through the DevTools protocol.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** A violation axe found: its rule and the elements it found it on. */
interface Violation {
  readonly id: string;
  readonly help: string;
  readonly targets: string[];
}

/**
 * Runs axe-core in the page. The page's policy allows no script but its own, so axe is evaluated
 * through the DevTools protocol, as the page's own scripts never could.
 */
export async function violations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: unknown[] }> } }).axe;
    const { violations: found } = await axe.run(document);
    return (found as { id: string; help: string; nodes: { target: string[] }[] }[]).map((violation) => ({
      id: violation.id,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" ")),
    }));
  });
}
