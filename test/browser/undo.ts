// Browser cases for undoing a deletion, shared by every runtime's file.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, expectShown, serverTasks, useBrowser } from "./browser.ts";

/** Deleting a task from the home page of a real `runtime` server, and bringing it back. */
export function describeUndo(runtime: Runtime): void {
  describe(`undoing a deletion on the home page of a ${runtime} server`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;
    const held = async (id: number) => (await serverTasks(list())).some((task) => task.id === id);

    test("Undo brings a deleted task back, and nothing is deleted; without it, the task is deleted with If-Match", async () => {
      const task = (await (await addFromElsewhere(list(), "Undo me")).json()) as { id: number };
      const page = await openPage(home());
      const other = await openPage(home());
      const deletes = sentDeletes(page);
      await expectShown(page, await serverTasks(list()));
      await expectShown(other, await serverTasks(list()));

      await page.getByRole("button", { name: "Delete Undo me", exact: true }).click();
      await page.getByText("Deleted “Undo me”", { exact: true }).waitFor();
      expect(await page.getByText("Undo me", { exact: true }).count()).toBe(0);
      await page.getByRole("button", { name: "Undo", exact: true }).focus();
      await page.keyboard.press("Enter");
      await page.getByText("Undo me", { exact: true }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Undo me");
      expect(await held(task.id)).toBe(true);
      await expectShown(page, await serverTasks(list()));

      await page.getByRole("button", { name: "Delete Undo me", exact: true }).focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => held(task.id), { timeout: 30_000 }).toBe(false);
      await expectShown(other, await serverTasks(list()));
      await expectShown(page, await serverTasks(list()));
      expect(await page.getByRole("button", { name: "Undo" }).isVisible()).toBe(false);
      expect(deletes.length).toBe(1);
      expect(await deletes[0]).toMatch(/^"[^"*]+"$/);
    });

    test("Clear completed can be undone as one", async () => {
      const ids: number[] = [];
      for (const title of ["Done one", "Done two"]) {
        ids.push(((await (await addFromElsewhere(list(), title, true)).json()) as { id: number }).id);
      }
      const page = await openPage(home());
      const deletes = sentDeletes(page);
      const before = await serverTasks(list());
      await expectShown(page, before);
      const completed = before.filter((task) => task.completed).length;
      await page.getByRole("button", { name: "Clear completed", exact: true }).click();
      await page.getByText(`Deleted ${completed} tasks`, { exact: true }).waitFor();
      await expectShown(
        page,
        before.filter((task) => !task.completed),
      );
      await page.getByRole("button", { name: "Undo", exact: true }).click();
      await expectShown(page, before);
      expect(await serverTasks(list())).toEqual(before);
      expect(deletes).toEqual([]);
      for (const id of ids) expect(await held(id)).toBe(true);
    });

    test("a deletion not undone while the service is out of reach waits on its row, and is sent once it is back", async () => {
      const task = (await (await addFromElsewhere(list(), "Deleted out of reach")).json()) as { id: number };
      let offline = false;
      const page = await openPage(home(), {
        allowed: [/net::ERR_INTERNET_DISCONNECTED/],
        before: (tab) =>
          tab.route(/\/tasks(\/|\?|$)/, (route) => (offline ? route.abort("internetdisconnected") : route.fallback())),
      });
      await expectShown(page, await serverTasks(list()));
      await page.getByRole("button", { name: "Delete Deleted out of reach", exact: true }).click();
      await page.getByText("Deleted “Deleted out of reach”", { exact: true }).waitFor();
      offline = true;
      // Once the offer to undo has gone, the DELETE cannot reach the service: the task comes back, waiting.
      const row = page.locator("#tasks > li", { hasText: "Deleted out of reach" });
      await row.getByText("waiting to be deleted", { exact: true }).waitFor({ timeout: 30_000 });
      expect(await page.getByRole("checkbox", { name: "Deleted out of reach", exact: true }).isDisabled()).toBe(true);
      expect(await held(task.id)).toBe(true);
      offline = false;
      await expect.poll(() => held(task.id), { timeout: 30_000 }).toBe(false);
      await expectShown(page, await serverTasks(list()));
    });

    test("a deletion not undone is sent when the page is closed within the seconds it could be", async () => {
      const task = (await (await addFromElsewhere(list(), "Closed on")).json()) as { id: number };
      const page = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      await page.getByRole("button", { name: "Delete Closed on", exact: true }).click();
      await page.getByText("Deleted “Closed on”", { exact: true }).waitFor();
      expect(await held(task.id)).toBe(true);
      await page.close({ runBeforeUnload: true });
      await expect.poll(() => held(task.id), { timeout: 30_000 }).toBe(false);
    });
  });
}

/** The If-Match of each DELETE `page` sends from now on. */
function sentDeletes(page: Page): Promise<string | null>[] {
  const sent: Promise<string | null>[] = [];
  page.on("request", (request) => {
    if (request.method() === "DELETE") sent.push(request.headerValue("If-Match"));
  });
  return sent;
}
