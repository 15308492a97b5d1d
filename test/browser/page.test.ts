import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, brokenWords, expectShown, newTaskField, serverTasks, useBrowser } from "./browser.ts";
import { screenshot } from "./screenshots.ts";

/** Relative luminance of a CSS `rgb()` colour, from 0 (black) to 1 (white). */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map((part) => {
    const c = Number(part) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The label of the focused control, or the text of the focused button. */
function focused(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (element instanceof HTMLInputElement) return element.labels?.[0]?.textContent ?? undefined;
    return element?.textContent ?? undefined;
  });
}

/** Whether the focused element draws a focus ring a person can see. */
function focusRingShown(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const style = document.activeElement === null ? undefined : getComputedStyle(document.activeElement);
    return style !== undefined && style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) >= 2;
  });
}

describe("the home page, for a person", () => {
  const server = useServer("node", {});
  const openPage = useBrowser();
  const home = () => `${server().baseUrl}/`;
  const list = () => `${server().baseUrl}/tasks`;

  test("follows the system's light or dark mode", async () => {
    // Lists beside the default one, as the screenshots show them.
    for (const title of ["Groceries", "Holiday in the mountains"]) {
      const res = await fetch(`${server().baseUrl}/lists`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ title }),
      });
      expect(res.status).toBe(201);
    }
    expect((await addFromElsewhere(list(), "Show the list on a home page", true)).status).toBe(200);
    expect((await addFromElsewhere(list(), "Test it in a real browser", false)).status).toBe(200);
    expect(
      (await addFromElsewhere(list(), "Water the tomatoes, the basil and the rosemary before the weekend", false))
        .status,
    ).toBe(200);
    const page = await openPage(home());
    await expectShown(page, await serverTasks(list()));
    await page.getByRole("link", { name: "Holiday in the mountains", exact: true }).waitFor();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const [background, text] = await page.evaluate(() => {
        const style = getComputedStyle(document.body);
        return [style.backgroundColor, style.color];
      });
      if (scheme === "light") {
        expect(luminance(background)).toBeGreaterThan(0.8);
        expect(luminance(text)).toBeLessThan(0.05);
      } else {
        expect(luminance(background)).toBeLessThan(0.05);
        expect(luminance(text)).toBeGreaterThan(0.8);
      }
      await screenshot(page, `home-page-${scheme}.png`);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 390, height: 700 });
    await screenshot(page, "home-page-phone.png");
  });

  test("shows titles as the text they are, never as markup", async () => {
    const titles = [
      `<img src="x" onerror="document.title='changed'">`,
      "</td></tr><script>document.title='changed'</script>",
      "&lt;b&gt; stays as typed &amp; so does this",
    ];
    for (const title of titles) expect((await addFromElsewhere(list(), title)).status).toBe(200);
    const page = await openPage(home());
    await expectShown(page, await serverTasks(list()));
    expect(await page.locator("#tasks").locator("img, script, b").count()).toBe(0);
    for (const title of titles) expect(await page.getByText(title, { exact: true }).count()).toBe(1);
    expect(await page.title()).toBe("Tasks");
  });

  test("shows an empty title as (no title)", async () => {
    expect((await addFromElsewhere(list(), "")).status).toBe(200);
    const page = await openPage(home());
    await expectShown(page, await serverTasks(list()));
    const shown = await page
      .locator("#tasks > li")
      .last()
      .locator(".title-text")
      .evaluate((text) => getComputedStyle(text, "::before").content);
    expect(shown).toBe('"(no title)"');
  });

  test("adds a task with the keyboard alone, showing where the focus is at each step", async () => {
    const page = await openPage(home());
    const before = await serverTasks(list());
    await expectShown(page, before);
    expect(await focused(page)).toBe("New task");
    expect(await focusRingShown(page)).toBe(true);
    await page.keyboard.type("Typed without a mouse");
    await page.keyboard.press("Enter");
    const added = { id: (before.at(-1)?.id ?? 0) + 1, title: "Typed without a mouse", completed: false };
    await expectShown(page, [...before, added]);
    expect(await focused(page)).toBe("New task");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(before[0]?.title);
    expect(await focusRingShown(page)).toBe(true);
    // The title, on which Enter edits it.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.classList.contains("title-text"))).toBe(true);
    expect(await focusRingShown(page)).toBe(true);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      `Edit ${before[0]?.title}`,
    );
    expect(await focusRingShown(page)).toBe(true);
  });

  test("fits a phone's screen without sideways scrolling, with controls big enough to tap", async () => {
    expect((await addFromElsewhere(list(), `A title with no spaces: ${"x".repeat(200)}`)).status).toBe(200);
    // Long enough to be shown by its start, with its "Show all" beside it.
    expect((await addFromElsewhere(list(), `A long title: ${"and then ".repeat(60)}`)).status).toBe(200);
    const page = await openPage(home());
    await page.setViewportSize({ width: 360, height: 740 });
    await page.getByRole("button", { name: /^Show all of the title of task / }).waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    for (const control of [newTaskField(page), page.getByRole("button", { name: /^Delete / }).first()]) {
      expect((await control.boundingBox())?.height).toBeGreaterThanOrEqual(44);
    }
  });

  test("at a phone's and a desktop's width, light and dark: no sideways scrolling, no word broken, one-line tasks at most 56 px tall", async () => {
    expect((await addFromElsewhere(list(), "Short one")).status).toBe(200);
    const words = "Remember to water the tomatoes, the basil and the rosemary before leaving";
    expect((await addFromElsewhere(list(), `${words} for the weekend trip to the mountains`, true)).status).toBe(200);
    expect((await addFromElsewhere(list(), `Unbroken ${"x".repeat(200)}`)).status).toBe(200);
    const page = await openPage(home());
    await expectAllShown(page);
    for (const width of [390, 1200]) {
      for (const scheme of ["light", "dark"] as const) {
        await page.setViewportSize({ width, height: 800 });
        await page.emulateMedia({ colorScheme: scheme });
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${width} px, ${scheme}`).toBeLessThanOrEqual(0);
        expect(await brokenWords(page), `${width} px, ${scheme}`).toEqual([]);
        const short = page.locator("#tasks > li", { hasText: "Short one" });
        expect((await short.boundingBox())?.height, `${width} px, ${scheme}`).toBeLessThanOrEqual(56);
      }
    }
  });

  test("a passing message replaces the last one rather than piling up, and clears itself", async () => {
    const ids: number[] = [];
    for (const title of ["Gone first", "Gone second"]) {
      ids.push(((await (await addFromElsewhere(list(), title)).json()) as { id: number }).id);
    }
    const page = await openPage(home(), {
      refused: [410],
      // Each task is deleted by another client just before the page's PATCH reaches the server.
      before: (tab) =>
        tab.route(/\/tasks\/\d+$/, async (route) => {
          if (route.request().method() === "PATCH") await fetch(route.request().url(), { method: "DELETE" });
          await route.fallback();
        }),
    });
    await expectAllShown(page);
    await page.getByRole("checkbox", { name: "Gone first", exact: true }).click();
    const first = page.getByText(`Task ${ids[0]} was deleted elsewhere`, { exact: true });
    await first.waitFor();
    await page.getByRole("checkbox", { name: "Gone second", exact: true }).click();
    const second = page.getByText(`Task ${ids[1]} was deleted elsewhere`, { exact: true });
    await second.waitFor();
    expect(await first.count()).toBe(0);
    await second.waitFor({ state: "detached", timeout: 30_000 });
  });

  test("a task renamed on another page while it was being edited: the conflict is shown, nothing is written over it", async () => {
    await startWith(list(), SCREENSHOT_TASKS);
    const page = await openPage(home());
    const other = await openPage(home());
    await expectShown(page, await serverTasks(list()));
    await page.getByText("Call the plumber about the sink", { exact: true }).dblclick();
    // The caret is at the end of the title: selecting all of it makes the typing replace it.
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Call the plumber before noon");

    await expectShown(other, await serverTasks(list()));
    await other.getByText("Call the plumber about the sink", { exact: true }).dblclick();
    // The caret is at the end of the title: selecting all of it makes the typing replace it.
    await other.keyboard.press("ControlOrMeta+A");
    await other.keyboard.type("Call the plumber and the electrician");
    await other.keyboard.press("Enter");
    await expect
      .poll(async () => (await serverTasks(list())).some((task) => task.title.endsWith("the electrician")))
      .toBe(true);

    await page.keyboard.press("Enter");
    const conflict =
      "This task was changed elsewhere: it now reads “Call the plumber and the electrician”. Your title is still in the field: Enter saves it, Escape keeps theirs";
    await page.getByText(conflict, { exact: true }).waitFor();
    const held = await serverTasks(list());
    expect(held.some((task) => task.title === "Call the plumber before noon")).toBe(false);
    await expectShown(page, held);
    await screenshot(page, "home-page-conflict.png");
  });

  test("writes made out of reach are shown waiting, in the banner and on their rows", async () => {
    await startWith(list(), SCREENSHOT_TASKS);
    let offline = false;
    const page = await openPage(home(), {
      allowed: [/net::ERR_INTERNET_DISCONNECTED/],
      before: (tab) =>
        tab.route(/\/tasks(\/|\?|$)/, (route) => (offline ? route.abort("internetdisconnected") : route.fallback())),
    });
    await expectShown(page, await serverTasks(list()));
    offline = true;
    await newTaskField(page).fill("Pick up the parcel");
    await newTaskField(page).press("Enter");
    await page.getByRole("checkbox", { name: "Book train tickets for Friday", exact: true }).click();
    await page.getByRole("button", { name: "Delete Buy bread", exact: true }).click();
    await page
      .getByText(
        "The service cannot be reached. Waiting to be sent when it is back: add “Pick up the parcel”; " +
          "mark “Book train tickets for Friday” done; delete “Buy bread”",
        { exact: true },
      )
      .waitFor();
    for (const mark of ["waiting to be added", "waiting to be sent", "waiting to be deleted"]) {
      expect(await page.getByText(mark, { exact: true }).isVisible(), mark).toBe(true);
    }
    await screenshot(page, "home-page-outbox.png");
    offline = false;
    await page.getByText(/^The service cannot be reached/).waitFor({ state: "hidden", timeout: 30_000 });
    await expectShown(page, await serverTasks(list()));
  });
});

/** The tasks the screenshots of a conflict and of the outbox show. */
const SCREENSHOT_TASKS = [
  ["Buy bread", true],
  ["Call the plumber about the sink", false],
  ["Book train tickets for Friday", false],
] as const;

/** Leaves the list holding exactly `tasks`, in order. */
async function startWith(listUrl: string, tasks: readonly (readonly [string, boolean])[]): Promise<void> {
  for (const task of await serverTasks(listUrl)) {
    expect((await fetch(`${listUrl}/${task.id}`, { method: "DELETE" })).status).toBe(204);
  }
  for (const [title, completed] of tasks) expect((await addFromElsewhere(listUrl, title, completed)).status).toBe(200);
}

/** Waits until the page shows as many tasks as the server holds: some are too long to compare whole. */
async function expectAllShown(page: Page): Promise<void> {
  const held = (await serverTasks(`${new URL(page.url()).origin}/tasks`)).length;
  await expect.poll(() => page.locator("#tasks > li").count(), { timeout: 30_000 }).toBe(held);
}
