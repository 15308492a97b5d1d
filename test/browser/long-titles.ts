// Browser cases for titles of nearly a megabyte each, shared by every runtime's file.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, type ShownTask, serverTasks, shownTasks, useBrowser } from "./browser.ts";

// The longest title a POST under the default MAX_BODY_BYTES (1 MiB) carries, with the rest of its JSON.
const LONG = 1024 * 1024 - 64;
const LONG_TASKS = 8;

/** What a person does with a list of very long titles, against a real server on `runtime`. */
export function describeLongTitles(runtime: Runtime): void {
  describe(`the home page of a ${runtime} server whose tasks have titles of nearly a megabyte`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("shows each title's start, all of one on request, and marks one done and renames it in place", async () => {
      const long: ShownTask[] = [];
      for (let n = 1; n <= LONG_TASKS; n++) {
        const res = await addFromElsewhere(
          list(),
          `Long task ${n}: ${"All work and no play. ".repeat(LONG / 16)}`.slice(0, LONG),
        );
        expect(res.status).toBe(200);
        long.push((await res.json()) as ShownTask);
      }
      const page = await openPage(home());
      const ids = (await serverTasks(list())).map((task) => task.id);
      await expect.poll(async () => (await shownTasks(page)).map((task) => task.id), { timeout: 30_000 }).toEqual(ids);
      const shown = await shownTasks(page);
      for (const task of long) {
        const start = shownTitle(shown, task.id);
        expect(start.length).toBeLessThan(400);
        expect(start.endsWith("…")).toBe(true);
        expect(task.title.startsWith(start.slice(0, -1))).toBe(true);
      }

      const target = long[3] as ShownTask;
      const start = shownTitle(shown, target.id);
      const text = page.locator(`li[data-id="${target.id}"] .title-text`);
      await page.getByRole("button", { name: `Show all of the title of task ${target.id}` }).focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => shownLength(text), { timeout: 30_000 }).toBe(target.title.length);
      expect(await text.textContent()).toBe(target.title);
      const less = page.getByRole("button", { name: `Show less of the title of task ${target.id}` });
      expect(await less.getAttribute("aria-expanded")).toBe("true");
      expect(await less.evaluate((button) => button === document.activeElement)).toBe(true);
      await page.keyboard.press("Enter");
      await expect.poll(() => text.textContent(), { timeout: 30_000 }).toBe(start);

      // From here on, only the row whose task changes is redrawn, and only where it changed.
      await page.evaluate(() => {
        const titles = new Set<Node>();
        const watch = new MutationObserver((changes) => {
          for (const change of changes) {
            const element = change.target instanceof Element ? change.target : change.target.parentElement;
            if (change.type === "attributes" || element?.closest(".title-view")) titles.add(change.target);
          }
          Object.assign(window, { titlesRedrawn: titles.size });
        });
        watch.observe(document.getElementById("tasks") as HTMLElement, {
          subtree: true,
          childList: true,
          characterData: true,
          attributeFilter: ["aria-label"],
        });
        Object.assign(window, { titlesRedrawn: 0 });
      });
      await page.getByRole("checkbox", { name: start, exact: true }).focus();
      await page.keyboard.press("Space");
      await expect.poll(async () => completed(await serverTasks(list()), target.id), { timeout: 30_000 }).toBe(true);
      await expect.poll(async () => completed(await shownTasks(page), target.id), { timeout: 30_000 }).toBe(true);
      expect(await page.evaluate(() => (window as unknown as { titlesRedrawn: number }).titlesRedrawn)).toBe(0);

      await page.getByRole("button", { name: `Edit ${start}` }).press("Enter");
      const field = page.getByRole("textbox", { name: `New title for ${start}` });
      expect(await field.inputValue()).toBe(target.title);
      await field.press("End");
      await page.keyboard.type(" (edited)");
      await field.press("Enter");
      const edited = `${target.title} (edited)`;
      await expect
        .poll(async () => (await serverTasks(list())).find((task) => task.id === target.id)?.title === edited, {
          timeout: 30_000,
        })
        .toBe(true);
      await expect.poll(async () => shownTitle(await shownTasks(page), target.id), { timeout: 30_000 }).toBe(start);
      expect(await page.getByRole("button", { name: `Edit ${start}` }).isVisible()).toBe(true);
    });
  });
}

function shownTitle(tasks: readonly ShownTask[], id: number): string {
  return tasks.find((task) => task.id === id)?.title ?? "";
}

function completed(tasks: readonly ShownTask[], id: number): boolean | undefined {
  return tasks.find((task) => task.id === id)?.completed;
}

function shownLength(text: ReturnType<Page["locator"]>): Promise<number> {
  return text.evaluate((element) => element.textContent?.length ?? 0);
}
