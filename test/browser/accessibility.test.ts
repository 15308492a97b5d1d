// axe-core run in the home page in Chromium: no violation empty, with tasks, editing, filtered, dark, offering Undo, with writes waiting, on a named list's page, with its deletion shown, sharing it.
import { describe, expect, test } from "vitest";
import { useServer } from "../support/server-fixture.ts";
import { violations } from "./axe.ts";
import { addFromElsewhere, expectShown, newTaskField, patchFromElsewhere, serverTasks, useBrowser } from "./browser.ts";

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

  test("has no violation with writes waiting in the outbox, light and dark, and with a conflict shown", async () => {
    for (const task of await serverTasks(list())) await fetch(`${list()}/${task.id}`, { method: "DELETE" });
    for (const [title, completed] of [
      ["Water the plants", false],
      ["Pay the rent", true],
      ["Renamed elsewhere", false],
    ] as const) {
      expect((await addFromElsewhere(list(), title, completed)).status).toBe(200);
    }
    let offline = false;
    const page = await openPage(home(), {
      allowed: [/net::ERR_INTERNET_DISCONNECTED/],
      before: (tab) =>
        tab.route(/\/tasks(\/|\?|$)/, (route) => (offline ? route.abort("internetdisconnected") : route.fallback())),
    });
    await expectShown(page, await serverTasks(list()));
    offline = true;
    await newTaskField(page).fill("Added out of reach");
    await newTaskField(page).press("Enter");
    await page.getByRole("checkbox", { name: "Water the plants", exact: true }).click();
    await page.getByRole("button", { name: "Delete Pay the rent", exact: true }).click();
    await page.getByText("waiting to be deleted", { exact: true }).waitFor();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await violations(page), `writes waiting, ${scheme}`).toEqual([]);
    }
    await page.reload();
    await page.getByText("waiting to be added", { exact: true }).waitFor();
    expect(await violations(page), "writes waiting after a reload out of reach, dark").toEqual([]);
    offline = false;
    await page.getByText(/^The service cannot be reached/).waitFor({ state: "hidden", timeout: 30_000 });

    await page.getByText("Renamed elsewhere", { exact: true }).dblclick();
    // The caret is at the end of the title: selecting all of it makes the typing replace it.
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Renamed here");
    const renamed = (await serverTasks(list())).find((task) => task.title === "Renamed elsewhere");
    expect((await patchFromElsewhere(`${list()}/${renamed?.id}`, { title: "Renamed twice" })).status).toBe(200);
    await page.keyboard.press("Enter");
    await page.getByText(/^This task was changed elsewhere/).waitFor();
    expect(await violations(page), "a conflict shown, dark").toEqual([]);
  });

  test("has no violation with the lists shown on a named list's page, light and dark, on a phone, and once the list was deleted", async () => {
    /** Creates a list straight through the API; returns its name. */
    const create = async (title: string) => {
      const res = await fetch(`${server().baseUrl}/lists`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ title }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { name: string }).name;
    };
    const name = await create("Groceries");
    for (const title of ["Holiday in the mountains", "Work"]) await create(title);
    for (const [title, completed] of [
      ["Milk", false],
      ["Bread", true],
    ] as const) {
      expect((await addFromElsewhere(`${server().baseUrl}/lists/${name}/tasks`, title, completed)).status).toBe(200);
    }
    const page = await openPage(`${server().baseUrl}/lists/${name}/`, { refused: [410] });
    await expect.poll(() => page.locator("#tasks > li").count()).toBe(2);
    await page.getByRole("link", { name: "Work", exact: true }).waitFor();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await violations(page), `a named list with the lists shown, ${scheme}`).toEqual([]);
    }
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await violations(page), "a named list on a phone, dark").toEqual([]);
    await page.getByRole("button", { name: "Create list", exact: true }).click();
    await page.getByText("Give the new list a title", { exact: true }).waitFor();
    expect(await violations(page), "creating a list without a title, dark").toEqual([]);
    expect((await fetch(`${server().baseUrl}/lists/${name}`, { method: "DELETE" })).status).toBe(204);
    await page.getByText(/^This list was deleted/).waitFor();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await violations(page), `the list deleted, ${scheme}`).toEqual([]);
    }
  });

  test("has no violation with the Share panel open, a link made and links listed, light and dark, wide and on a phone", async () => {
    const page = await openPage(home());
    await page.getByRole("button", { name: "Share", exact: true }).click();
    await page.getByText("No links yet", { exact: true }).waitFor();
    for (const label of ["For the neighbours", ""]) {
      await page.getByRole("textbox", { name: "Label", exact: true }).fill(label);
      await page.getByRole("button", { name: "Make link", exact: true }).click();
      await page.getByRole("textbox", { name: "New link", exact: true }).waitFor();
    }
    await expect.poll(() => page.locator("#share-links li").count()).toBe(2);
    for (const width of [1200, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await violations(page), `sharing, ${width} px, ${scheme}`).toEqual([]);
      }
    }
    await page.getByRole("button", { name: "Revoke the link “For the neighbours”", exact: true }).click();
    await expect.poll(() => page.locator("#share-links li").count()).toBe(1);
  });
});
