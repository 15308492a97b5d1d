// Browser cases for what a person knows from TodoMVC: the new-task field, Mark all, the footer, editing in place.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, addWithForm, expectShown, newTaskField, serverTasks, useBrowser } from "./browser.ts";

/** What a person does with the TodoMVC controls of the home page, against a real server on `runtime`. */
export function describeTodoMvc(runtime: Runtime): void {
  describe(`the TodoMVC controls of the home page of a ${runtime} server`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("the new-task field has the focus, adds a trimmed title on Enter and sends nothing for an empty one", async () => {
      const page = await openPage(home());
      const posts: string[] = [];
      page.on("request", (request) => {
        if (request.method() === "POST") posts.push(request.postData() ?? "");
      });
      await expectShown(page, await serverTasks(list()));
      expect(await newTaskField(page).evaluate((field) => field === document.activeElement)).toBe(true);
      await page.keyboard.type("   ");
      await page.keyboard.press("Enter");
      await page.keyboard.type("  Buy milk ");
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await serverTasks(list())).at(-1)?.title).toBe("Buy milk");
      await expectShown(page, await serverTasks(list()));
      expect(posts.map((body) => JSON.parse(body).title)).toEqual(["Buy milk"]);
      expect(await newTaskField(page).inputValue()).toBe("");
    });

    test("typing fast loses no task: an Enter while the last add is still being sent adds its task after it", async () => {
      let answer = () => {};
      const held = new Promise<void>((resolve) => {
        answer = resolve;
      });
      let posts = 0;
      const page = await openPage(home(), {
        before: (tab) =>
          tab.route(list(), async (route) => {
            if (route.request().method() !== "POST") return route.fallback();
            // The first add's answer is slow to come, as on a slow network.
            if (++posts === 1) await held;
            return route.fallback();
          }),
      });
      const before = await serverTasks(list());
      await expectShown(page, before);
      await newTaskField(page).focus();
      await page.keyboard.type("Typed first");
      await page.keyboard.press("Enter");
      await expect.poll(() => posts).toBe(1);
      await page.keyboard.type("Typed while the first was sent");
      await page.keyboard.press("Enter");
      await page.keyboard.type("Still being typed");
      answer();
      const titles = ["Typed first", "Typed while the first was sent"];
      await expect
        .poll(async () => (await serverTasks(list())).slice(before.length).map((task) => task.title), {
          timeout: 30_000,
        })
        .toEqual(titles);
      await expectShown(page, await serverTasks(list()));
      expect(await newTaskField(page).inputValue()).toBe("Still being typed");
    });

    test("Mark all as complete, the items left and Clear completed, on two pages of one list", async () => {
      const page = await openPage(home());
      const other = await openPage(home());
      await addWithForm(page, "Feed the cat");
      await expect
        .poll(async () => (await serverTasks(list())).some((task) => task.title === "Feed the cat"))
        .toBe(true);
      const before = await serverTasks(list());
      await expectShown(other, before);
      const left = before.filter((task) => !task.completed).length;
      await expect.poll(() => itemsLeft(other)).toBe(left === 1 ? "1 item left" : `${left} items left`);

      await page.getByRole("checkbox", { name: "Mark all as complete", exact: true }).click();
      await expect.poll(async () => (await serverTasks(list())).every((task) => task.completed)).toBe(true);
      const done = await serverTasks(list());
      await expectShown(other, done);
      await expect.poll(() => itemsLeft(other)).toBe("0 items left");
      expect(await other.getByRole("checkbox", { name: "Mark all as complete" }).isChecked()).toBe(true);

      const clear = other.getByRole("button", { name: "Clear completed", exact: true });
      await clear.click();
      // Deleted once the offer to undo it has gone.
      await expect.poll(async () => (await serverTasks(list())).length, { timeout: 30_000 }).toBe(0);
      await expectShown(page, []);
      await expectShown(other, []);
      expect(await clear.isVisible()).toBe(false);
      expect(await page.getByRole("checkbox", { name: "Mark all as complete" }).isVisible()).toBe(false);

      await addWithForm(other, "Only one left");
      await expect.poll(() => itemsLeft(page)).toBe("1 item left");
      expect(await page.getByRole("button", { name: "Clear completed" }).isVisible()).toBe(false);
    });

    test("filters All, Active and Completed are links whose choice a reload keeps", async () => {
      for (const [title, completed] of [
        ["Still to do", false],
        ["Done already", true],
      ] as const) {
        expect((await addFromElsewhere(list(), title, completed)).status).toBe(200);
      }
      const page = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      const all = await serverTasks(list());
      const titles = (completed?: boolean) =>
        all.filter((task) => completed === undefined || task.completed === completed).map((task) => task.title);
      expect(await page.getByRole("link", { name: "All", exact: true }).getAttribute("href")).toBe("#/");
      await page.getByRole("link", { name: "Active", exact: true }).click();
      expect(new URL(page.url()).hash).toBe("#/active");
      await expect.poll(() => visibleTitles(page)).toEqual(titles(false));
      await page.reload();
      await expect.poll(() => visibleTitles(page)).toEqual(titles(false));
      expect(await page.getByRole("link", { name: "Active" }).getAttribute("aria-current")).toBe("page");
      await page.getByRole("link", { name: "Completed", exact: true }).click();
      await expect.poll(() => visibleTitles(page)).toEqual(titles(true));
      await page.getByRole("link", { name: "All", exact: true }).click();
      await expect.poll(() => visibleTitles(page)).toEqual(titles());
    });

    test("edits a title in place: double-click, Enter on it or Edit; Enter or leaving saves, Escape cancels, empty deletes", async () => {
      const task = (await (await addFromElsewhere(list(), "Call mum")).json()) as { id: number };
      const page = await openPage(home());
      const other = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      const field = (title: string) => page.getByRole("textbox", { name: `New title for ${title}`, exact: true });
      const titleOf = async () => (await serverTasks(list())).find((shown) => shown.id === task.id)?.title;

      await page.getByText("Call mum", { exact: true }).dblclick();
      expect(await field("Call mum").inputValue()).toBe("Call mum");
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Not this");
      await page.keyboard.press("Escape");
      expect(await page.getByText("Call mum", { exact: true }).isVisible()).toBe(true);
      // The focus goes back where the edit began: the title, on which Enter edits it again.
      expect(await focusedTitle(page)).toBe("Call mum");

      await page.keyboard.press("Enter");
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("  Call dad  ");
      await page.keyboard.press("Enter");
      await expect.poll(titleOf).toBe("Call dad");
      await expectShown(other, await serverTasks(list()));

      await page.getByText("Call dad", { exact: true }).dblclick();
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Call grandma");
      await newTaskField(page).click();
      await expect.poll(titleOf).toBe("Call grandma");
      await expectShown(other, await serverTasks(list()));

      await page.getByRole("button", { name: "Edit Call grandma", exact: true }).click();
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.press("Backspace");
      await page.keyboard.press("Enter");
      await expect.poll(titleOf, { timeout: 30_000 }).toBe(undefined);
      await expectShown(other, await serverTasks(list()));
      await expectShown(page, await serverTasks(list()));
    });

    test("Enter on the title or on its Edit button, each reached with Tab, edits it in place", async () => {
      const task = (await (await addFromElsewhere(list(), "Water the plants")).json()) as { id: number };
      const page = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      const titleOf = async () => (await serverTasks(list())).find((shown) => shown.id === task.id)?.title;
      const editing = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));

      await page.getByRole("checkbox", { name: "Water the plants", exact: true }).focus();
      await page.keyboard.press("Tab");
      expect(await focusedTitle(page)).toBe("Water the plants");
      await page.keyboard.press("Enter");
      expect(await editing()).toBe("New title for Water the plants");
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Water the roses");
      await page.keyboard.press("Enter");
      await expect.poll(titleOf).toBe("Water the roses");
      await expect.poll(() => focusedTitle(page)).toBe("Water the roses");

      await page.keyboard.press("Tab");
      expect(await editing()).toBe("Edit Water the roses");
      await page.keyboard.press("Enter");
      expect(await editing()).toBe("New title for Water the roses");
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Not saved");
      await page.keyboard.press("Escape");
      expect(await editing()).toBe("Edit Water the roses");
      expect(await titleOf()).toBe("Water the roses");
    });

    test("a task's buttons show on hover and focus with a mouse, and always on a touch screen", async () => {
      expect((await addFromElsewhere(list(), "Hover over me")).status).toBe(200);
      const page = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      const del = page.getByRole("button", { name: "Delete Hover over me", exact: true });
      const opacity = () => del.evaluate((button) => getComputedStyle(button.parentElement as HTMLElement).opacity);
      await page.mouse.move(0, 0);
      expect(await opacity()).toBe("0");
      await page.getByText("Hover over me", { exact: true }).hover();
      expect(await opacity()).toBe("1");
      await page.mouse.move(0, 0);
      await del.focus();
      expect(await opacity()).toBe("1");
      await newTaskField(page).focus();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setTouchEmulationEnabled", { enabled: true, maxTouchPoints: 1 });
      await cdp.send("Emulation.setEmitTouchEventsForMouse", { enabled: true });
      await expect.poll(opacity).toBe("1");
    });
  });
}

async function itemsLeft(page: Page): Promise<string | null> {
  return page.getByText(/^\d+ items? left$/).textContent();
}

async function visibleTitles(page: Page): Promise<string[]> {
  return page
    .locator("#tasks > li")
    .evaluateAll((items) =>
      items
        .filter((li) => (li as HTMLElement).offsetParent !== null)
        .map((li) => li.querySelector(".title-text")?.textContent ?? ""),
    );
}

/** The title the focus is on, if it is on one. */
async function focusedTitle(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const element = document.activeElement;
    return element?.classList.contains("title-text") ? (element.textContent ?? "") : undefined;
  });
}
