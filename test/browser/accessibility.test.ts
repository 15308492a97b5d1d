// axe-core run in the home page in Chromium: no violation empty, with tasks, while editing, filtered, dark, offering Undo.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, expectShown, serverTasks, useBrowser } from "./browser.ts";

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
async function violations(page: Page): Promise<Violation[]> {
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

describe("the home page, checked by axe-core", () => {
  const server = useServer("node", {});
  const openPage = useBrowser();
  const home = () => `${server().baseUrl}/`;
  const list = () => `${server().baseUrl}/tasks`;

  test("has no violation empty, with tasks, while a title is edited, filtered, in dark mode, on a phone and offering Undo", async () => {
    for (const task of await serverTasks(list())) await fetch(`${list()}/${task.id}`, { method: "DELETE" });
    const page = await openPage(home());
    await expectShown(page, []);
    expect(await violations(page), "empty").toEqual([]);

    for (const [title, completed] of [
      ["Write the report", false],
      ["Send the invoices", true],
      [`A long title: ${"and then ".repeat(60)}`, false],
      ["", false],
    ] as const) {
      expect((await addFromElsewhere(list(), title, completed)).status).toBe(200);
    }
    await expect.poll(() => page.locator("#tasks > li").count()).toBe(4);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await violations(page), `with tasks, ${scheme}`).toEqual([]);
      await page.getByText("Write the report", { exact: true }).dblclick();
      await page.getByRole("textbox", { name: "New title for Write the report" }).waitFor();
      expect(await violations(page), `editing, ${scheme}`).toEqual([]);
      await page.keyboard.press("Escape");
      await page.getByRole("link", { name: "Completed", exact: true }).click();
      expect(await violations(page), `filtered, ${scheme}`).toEqual([]);
      await page.getByRole("link", { name: "All", exact: true }).click();
    }
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await violations(page), "on a phone, dark").toEqual([]);
    await page.getByRole("button", { name: "Delete Send the invoices", exact: true }).click();
    await page.getByRole("button", { name: "Undo", exact: true }).waitFor();
    expect(await violations(page), "offering to undo a deletion").toEqual([]);
    await page.getByRole("button", { name: "Undo", exact: true }).click();
  });
});
