// The home page in Chromium: the caret when editing, a conflict keeping the typed title, what shows at once, and renaming and deleting a list.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { useServer } from "../support/server-fixture.ts";
import { violations } from "./axe.ts";
import {
  addFromElsewhere,
  createFromElsewhere,
  expectShown,
  patchFromElsewhere,
  type ShownTask,
  serverTasks,
  useBrowser,
} from "./browser.ts";
import { screenshot } from "./screenshots.ts";

/** The focused field's value and selection, as [value, start, end]. */
function caret(page: Page) {
  return page.evaluate(() => {
    const field = document.activeElement as HTMLInputElement;
    return [field.value, field.selectionStart, field.selectionEnd];
  });
}

describe("editing on the home page, and its lists", () => {
  const server = useServer("node", {});
  const openPage = useBrowser();
  const home = () => `${server().baseUrl}/`;
  const list = () => `${server().baseUrl}/tasks`;

  test("editing a title puts the caret at its end with nothing selected, so typing adds to it", async () => {
    await addFromElsewhere(list(), "Water the plants");
    const page = await openPage(home());
    await expectShown(page, await serverTasks(list()));
    await page.getByText("Water the plants", { exact: true }).dblclick();
    await page.getByRole("textbox", { name: "New title for Water the plants", exact: true }).waitFor();
    expect(await caret(page)).toEqual(["Water the plants", 16, 16]);
    await page.keyboard.type(" on the balcony");
    await page.keyboard.press("Enter");
    await expect
      .poll(async () => (await serverTasks(list())).some((task) => task.title === "Water the plants on the balcony"))
      .toBe(true);
  });

  test("a title typed while another page renamed the task stays in the field beside the task as it now is, to be kept or let go", async () => {
    const added = (await (await addFromElsewhere(list(), "Paint the fence")).json()) as ShownTask;
    const page = await openPage(home());
    await expectShown(page, await serverTasks(list()));
    await page.getByText("Paint the fence", { exact: true }).dblclick();
    await page.keyboard.type(" red");
    expect((await patchFromElsewhere(`${list()}/${added.id}`, { title: "Paint the gate" })).status).toBe(200);
    await page.keyboard.press("Enter");

    const row = page.locator("#tasks > li", { hasText: "Paint the gate" });
    await expect
      .poll(() => row.getByRole("status").textContent(), { timeout: 30_000 })
      .toBe(
        "This task was changed elsewhere: it now reads “Paint the gate”. Your title is still in the field: Enter saves it, Escape keeps theirs",
      );
    const field = page.getByRole("textbox", { name: "New title for Paint the gate", exact: true });
    expect(await field.inputValue()).toBe("Paint the fence red");
    expect(await row.locator(".title-text").isVisible()).toBe(true);
    expect((await serverTasks(list())).find((task) => task.id === added.id)?.title).toBe("Paint the gate");
    expect(await violations(page), "a conflict with the typed title kept").toEqual([]);

    await field.press("Enter");
    await expect
      .poll(async () => (await serverTasks(list())).find((task) => task.id === added.id)?.title)
      .toBe("Paint the fence red");
  });

  test("items left follows a tick at once, before the service has answered", async () => {
    const added = (await (await addFromElsewhere(list(), "Tick me")).json()) as ShownTask;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const page = await openPage(home(), {
      before: (tab) =>
        tab.route(`${list()}/${added.id}`, async (route) => {
          if (route.request().method() === "PATCH") await held;
          await route.fallback();
        }),
    });
    const tasks = await serverTasks(list());
    await expectShown(page, tasks);
    const left = tasks.filter((task) => !task.completed).length;
    const count = page.getByText(/^\d+ items? left$/);
    expect(await count.textContent()).toBe(`${left} items left`);
    await page.getByRole("checkbox", { name: "Tick me", exact: true }).click();
    await expect.poll(() => count.textContent()).toBe(`${left - 1} item${left - 1 === 1 ? "" : "s"} left`);
    release();
    await expect
      .poll(async () => (await serverTasks(list())).find((task) => task.id === added.id)?.completed)
      .toBe(true);
  });

  test("while the list is read, the page shows it as last seen, never an empty card", async () => {
    const page = await openPage(home());
    const tasks = await serverTasks(list());
    await expectShown(page, tasks);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(list(), async (route) => {
      if (route.request().method() === "GET") await held;
      await route.fallback();
    });
    await page.reload({ waitUntil: "domcontentloaded" });
    await expectShown(page, tasks);
    release();
  });

  test("a list is renamed from its page with Enter, Escape cancels, and the default list has no Delete", async () => {
    const name = await createFromElsewhere(server().baseUrl, "Holiday");
    const page = await openPage(`${server().baseUrl}/lists/${name}/`);
    await page.getByRole("link", { name: "Holiday", exact: true }).waitFor();
    await page.getByRole("button", { name: "Rename list", exact: true }).click();
    const field = page.getByRole("textbox", { name: "List title", exact: true });
    expect(await field.inputValue()).toBe("Holiday");
    expect(await caret(page)).toEqual(["Holiday", 7, 7]);
    expect(await violations(page), "renaming a list").toEqual([]);
    await screenshot(page, "home-page-rename-list.png", true);
    await field.press("Escape");
    expect(await field.isHidden()).toBe(true);

    await page.getByRole("button", { name: "Rename list", exact: true }).click();
    await field.fill("Holiday in the mountains");
    await field.press("Enter");
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Holiday in the mountains");
    const read = await fetch(`${server().baseUrl}/lists/${name}`);
    expect(await read.json()).toEqual({ name, title: "Holiday in the mountains" });

    const start = await openPage(home());
    await start.getByRole("button", { name: "Rename list", exact: true }).waitFor();
    expect(await start.getByRole("button", { name: "Delete list" }).count()).toBe(0);
  });

  test("a list deleted from its page can be undone for 5 seconds, and is deleted once that is over", async () => {
    const name = await createFromElsewhere(server().baseUrl, "Short-lived");
    const deletes: string[] = [];
    const page = await openPage(`${server().baseUrl}/lists/${name}/`, { refused: [410] });
    page.on("request", (request) => {
      if (request.method() === "DELETE") deletes.push(new URL(request.url()).pathname);
    });
    await page.getByRole("link", { name: "Short-lived", exact: true }).waitFor();
    await page.getByRole("button", { name: "Delete list", exact: true }).click();
    await page.getByText("Deleted the list “Short-lived”", { exact: true }).waitFor();
    expect(await page.getByRole("region", { name: "The list" }).isHidden()).toBe(true);
    expect(await violations(page), "offering to undo a list's deletion").toEqual([]);
    await page.getByRole("button", { name: "Undo", exact: true }).click();
    await page.getByRole("region", { name: "The list" }).waitFor();
    expect(deletes).toEqual([]);
    expect((await fetch(`${server().baseUrl}/lists/${name}`)).status).toBe(200);

    await page.getByRole("button", { name: "Delete list", exact: true }).click();
    await page.getByText(/^This list was deleted, and its tasks with it\./).waitFor({ timeout: 30_000 });
    expect((await fetch(`${server().baseUrl}/lists/${name}`)).status).toBe(410);
    expect(deletes).toEqual([`/lists/${name}`]);
  });
});
