// Browser cases for each task's controls (done, rename, delete), shared by every runtime's file.
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, expectShown, serverTasks, useBrowser } from "./browser.ts";

/** What a person does to one task from the home page, against a real server on `runtime`. */
export function describeTaskControls(runtime: Runtime): void {
  describe(`the task controls of the home page of a ${runtime} server`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("marks a task done, renames it and deletes it from the keyboard, and a second page shows each change", async () => {
      const added = await (await addFromElsewhere(list(), "Walk the dog")).json();
      const page = await openPage(home());
      const other = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      await expectShown(other, await serverTasks(list()));

      await page.getByRole("checkbox", { name: "Done: Walk the dog" }).focus();
      await page.keyboard.press("Space");
      await expectShown(other, await untilServer(list(), (tasks) => isDone(tasks, added.id)));
      expect(await page.getByRole("checkbox", { name: "Done: Walk the dog" }).isChecked()).toBe(true);

      await page.getByRole("button", { name: "Rename Walk the dog" }).focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => focusedName(page)).toBe("New title for Walk the dog");
      await page.keyboard.type("Do not walk the cat");
      await page.keyboard.press("Escape");
      await expect.poll(() => focusedName(page)).toBe("Rename Walk the dog");
      await page.keyboard.press("Enter");
      await page.keyboard.type("Walk the cat");
      await page.keyboard.press("Enter");
      const renamed = await untilServer(list(), (tasks) => tasks.some((task) => task.title === "Walk the cat"));
      expect(renamed.find((task) => task.id === added.id)).toEqual({
        id: added.id,
        title: "Walk the cat",
        completed: true,
      });
      await expectShown(other, renamed);
      await expectShown(page, renamed);

      await page.getByRole("button", { name: "Delete Walk the cat" }).focus();
      await page.keyboard.press("Enter");
      const left = await untilServer(list(), (tasks) => !tasks.some((task) => task.id === added.id));
      await expectShown(other, left);
      await expectShown(page, left);
    });

    test("a task changed elsewhere between the page's read and its write is shown as it now is, and said so", async () => {
      const added = await (await addFromElsewhere(list(), "Water the plants")).json();
      const task = `${list()}/${added.id}`;
      const page = await openPage(home(), {
        refused: [412],
        // The other client's change lands just before the page's PATCH reaches the server.
        before: (tab) =>
          tab.route(task, async (route) => {
            if (route.request().method() === "PATCH") {
              const current = await fetch(task);
              await fetch(task, {
                method: "PATCH",
                headers: {
                  "Content-Type": "application/merge-patch+json",
                  "If-Match": current.headers.get("ETag") ?? "",
                },
                body: JSON.stringify({ title: "Water the garden" }),
              });
            }
            await route.fallback();
          }),
      });
      await expectShown(page, await serverTasks(list()));
      await page.getByRole("checkbox", { name: "Done: Water the plants" }).focus();
      await page.keyboard.press("Space");
      await expect
        .poll(() =>
          page
            .getByRole("row", { name: /Water the garden/ })
            .getByRole("status")
            .textContent(),
        )
        .toBe("This task was changed elsewhere: it now reads “Water the garden”, not done. Nothing was changed");
      const now = await serverTasks(list());
      expect(now.find((shown) => shown.id === added.id)).toEqual({
        id: added.id,
        title: "Water the garden",
        completed: false,
      });
      await expectShown(page, now);
    });
  });
}

/** @returns the list as the server serves it, once `ready` holds for it. */
async function untilServer(
  listUrl: string,
  ready: (tasks: Awaited<ReturnType<typeof serverTasks>>) => boolean,
): Promise<Awaited<ReturnType<typeof serverTasks>>> {
  await expect.poll(async () => ready(await serverTasks(listUrl)), { timeout: 30_000 }).toBe(true);
  return serverTasks(listUrl);
}

function isDone(tasks: Awaited<ReturnType<typeof serverTasks>>, id: number): boolean {
  return tasks.some((task) => task.id === id && task.completed);
}

async function focusedName(page: import("playwright-core").Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? null);
}
