// Browser cases for each task's controls (done, edit in place, delete), shared by every runtime's file.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import {
  addFromElsewhere,
  expectShown,
  patchFromElsewhere,
  type ShownTask,
  serverTasks,
  useBrowser,
} from "./browser.ts";

const CHANGED = (title: string, state: string) =>
  `This task was changed elsewhere: it now reads “${title}”, ${state}. Nothing was changed`;

/** What a person does to one task from the home page, against a real server on `runtime`. */
export function describeTaskControls(runtime: Runtime): void {
  describe(`the task controls of the home page of a ${runtime} server`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("two people mark a task done and not done, edit its title and delete it from the keyboard, each seeing the other's changes", async () => {
      const added = await (await addFromElsewhere(list(), "Walk the dog")).json();
      const page = await openPage(home());
      const other = await openPage(home());
      const writes: Write[] = [];
      for (const tab of [page, other]) recordWrites(tab, writes);
      await expectShown(page, await serverTasks(list()));
      await expectShown(other, await serverTasks(list()));

      await page.getByRole("checkbox", { name: "Walk the dog" }).focus();
      await page.keyboard.press("Space");
      const done = await untilServer(list(), (tasks) => completedOf(tasks, added.id) === true);
      await expectShown(other, done);
      await expectShown(page, done);

      await other.getByRole("checkbox", { name: "Walk the dog" }).focus();
      await other.keyboard.press("Space");
      const notDone = await untilServer(list(), (tasks) => completedOf(tasks, added.id) === false);
      await expectShown(page, notDone);
      expect(await page.getByRole("checkbox", { name: "Walk the dog" }).isChecked()).toBe(false);

      await page.getByRole("button", { name: "Edit Walk the dog" }).focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => focusedName(page)).toBe("New title for Walk the dog");
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Do not walk the cat");
      await page.keyboard.press("Escape");
      await expect.poll(() => focusedName(page)).toBe("Edit Walk the dog");
      await page.keyboard.press("Enter");
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Walk the cat");
      await page.keyboard.press("Enter");
      const renamed = await untilServer(list(), (tasks) => tasks.some((task) => task.title === "Walk the cat"));
      expect(renamed.find((task) => task.id === added.id)).toEqual({
        id: added.id,
        title: "Walk the cat",
        completed: false,
      });
      await expectShown(other, renamed);
      await expectShown(page, renamed);

      await other.getByRole("button", { name: "Delete Walk the cat" }).focus();
      await other.keyboard.press("Enter");
      const left = await untilServer(list(), (tasks) => !tasks.some((task) => task.id === added.id));
      await expectShown(page, left);
      await expectShown(other, left);
      // The deleted row took the focus with it: it moves to a neighbour's checkbox, not the page's top.
      await expect.poll(() => other.evaluate(() => document.activeElement?.className)).toBe("done-box");

      expect(writes.map((write) => write.method)).toEqual(["PATCH", "PATCH", "PATCH", "DELETE"]);
      for (const ifMatch of await Promise.all(writes.map((write) => write.ifMatch))) {
        expect(ifMatch).toMatch(/^"[^"*]+"$/);
      }
    });

    test("a task changed elsewhere between the page's read and its write is shown as it now is, and said so", async () => {
      const added = await (await addFromElsewhere(list(), "Water the plants")).json();
      const task = `${list()}/${added.id}`;
      const page = await openPage(home(), {
        refused: [412],
        // The other client's change lands just before the page's PATCH reaches the server.
        before: (tab) =>
          tab.route(task, async (route) => {
            if (route.request().method() === "PATCH") await patchFromElsewhere(task, { title: "Water the garden" });
            await route.fallback();
          }),
      });
      await expectShown(page, await serverTasks(list()));
      const refused = page.waitForResponse((res) => res.request().method() === "PATCH");
      await page.getByRole("checkbox", { name: "Water the plants" }).focus();
      await page.keyboard.press("Space");
      expect((await refused).status()).toBe(412);
      const note = page.locator("#tasks > li", { hasText: /Water the garden/ }).getByRole("status");
      await expect.poll(() => note.textContent()).toBe(CHANGED("Water the garden", "not done"));
      expect(await note.isVisible()).toBe(true);
      // Like every passing message, it clears itself.
      await note.waitFor({ state: "detached", timeout: 30_000 });
      const now = await serverTasks(list());
      expect(now.find((shown) => shown.id === added.id)).toEqual({
        id: added.id,
        title: "Water the garden",
        completed: false,
      });
      await expectShown(page, now);
      expect(await page.getByRole("checkbox", { name: "Water the garden" }).isChecked()).toBe(false);
    });

    test("a title typed while another page renamed the task is not written over that rename", async () => {
      const added = await (await addFromElsewhere(list(), "Paint the fence")).json();
      const page = await openPage(home());
      const other = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      await expectShown(other, await serverTasks(list()));
      await page.getByRole("button", { name: "Edit Paint the fence" }).press("Enter");
      await expect.poll(() => focusedName(page)).toBe("New title for Paint the fence");

      await other.getByRole("button", { name: "Edit Paint the fence" }).press("Enter");
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await other.keyboard.press("ControlOrMeta+A");
      await other.keyboard.type("Paint the gate");
      await other.keyboard.press("Enter");
      const renamed = await untilServer(list(), (tasks) => tasks.some((task) => task.title === "Paint the gate"));
      await expect.poll(() => focusedName(page)).toBe("New title for Paint the gate");

      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Paint the shed");
      await page.keyboard.press("Enter");
      const note = page.locator("#tasks > li", { hasText: /Paint the gate/ }).getByRole("status");
      await expect
        .poll(() => note.textContent())
        .toBe(
          "This task was changed elsewhere: it now reads “Paint the gate”. Your title is still in the field: Enter saves it, Escape keeps theirs",
        );
      expect(await serverTasks(list())).toEqual(renamed);
      await expectShown(page, renamed);
      expect(renamed.find((task) => task.id === added.id)?.title).toBe("Paint the gate");
    });

    test("a task deleted elsewhere just before the page's write leaves the list, and the page says so", async () => {
      const added = await (await addFromElsewhere(list(), "Fix the bike")).json();
      const task = `${list()}/${added.id}`;
      const page = await openPage(home(), {
        refused: [410],
        before: (tab) =>
          tab.route(task, async (route) => {
            if (route.request().method() === "PATCH") await fetch(task, { method: "DELETE" });
            await route.fallback();
          }),
      });
      await expectShown(page, await serverTasks(list()));
      await page.getByRole("checkbox", { name: "Fix the bike" }).focus();
      await page.keyboard.press("Space");
      await page.getByText(`Task ${added.id} was deleted elsewhere`, { exact: true }).waitFor();
      const left = await serverTasks(list());
      expect(left.some((shown) => shown.id === added.id)).toBe(false);
      await expectShown(page, left);
    });
  });
}

/** A write to one task, with the If-Match it was sent with. */
interface Write {
  readonly method: string;
  readonly ifMatch: Promise<string | null>;
}

/** Adds to `writes` each PATCH, PUT or DELETE of one task that `page` sends from now on. */
function recordWrites(page: Page, writes: Write[]): void {
  page.on("request", (request) => {
    if (/\/tasks\/\d+$/.test(new URL(request.url()).pathname) && request.method() !== "GET") {
      writes.push({ method: request.method(), ifMatch: request.headerValue("If-Match") });
    }
  });
}

/** @returns the list as the server serves it, once `ready` holds for it. */
async function untilServer(listUrl: string, ready: (tasks: ShownTask[]) => boolean): Promise<ShownTask[]> {
  await expect.poll(async () => ready(await serverTasks(listUrl)), { timeout: 30_000 }).toBe(true);
  return serverTasks(listUrl);
}

function completedOf(tasks: readonly ShownTask[], id: number): boolean | undefined {
  return tasks.find((task) => task.id === id)?.completed;
}

async function focusedName(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? null);
}
