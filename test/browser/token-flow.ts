import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { NO_TOKEN, READ_ONLY, UNKNOWN_TOKEN } from "../../src/messages.ts";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addWithForm, expectShown, serverTasks, shownTasks, useBrowser } from "./browser.ts";

const READ_TOKEN = "browser-read-token-0123456789";
const WRITE_TOKEN = "browser-write-token-0123456789";

/** Gives the page a token through its token form, as a person would. */
async function enterToken(page: Page, token: string): Promise<void> {
  await page.getByLabel("Token", { exact: true }).fill(token);
  await page.getByLabel("Token", { exact: true }).press("Enter");
}

/** The Authorization header of every list request the page sends from now on. */
function authorizationsSent(page: Page): Promise<string | null>[] {
  const sent: Promise<string | null>[] = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (path === "/tasks" || path === "/tasks/events") sent.push(request.headerValue("Authorization"));
  });
  return sent;
}

/**
 * What a person sees of READ_TOKENS and WRITE_TOKENS on the home page of a real `runtime` server:
 * the page asks for a token when the list answers 401, keeps it for the tab and sends it as a
 * bearer token, and shows the service's own messages for 401 and 403.
 */
export function describeTokenFlow(runtime: Runtime): void {
  describe(`the home page of a ${runtime} server whose list needs a token`, () => {
    const server = useServer(runtime, { READ_TOKENS: READ_TOKEN, WRITE_TOKENS: WRITE_TOKEN });
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("asks for a token when the list answers 401, then reads the list with it as a bearer token", async () => {
      const page = await openPage(home(), { refused: [401] });
      await expect.poll(() => page.getByRole("alert").textContent()).toBe(NO_TOKEN);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("token");
      const sent = authorizationsSent(page);
      const followed = page.waitForResponse((res) => res.url().startsWith(`${list()}/events`) && res.status() === 200);
      await enterToken(page, READ_TOKEN);
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
      await followed;
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(new Set(await Promise.all(sent))).toEqual(new Set([`Bearer ${READ_TOKEN}`]));
    });

    test("sends a write token as a bearer token when adding a task", async () => {
      const page = await openPage(home(), { refused: [401] });
      await enterToken(page, WRITE_TOKEN);
      const before = await serverTasks(list(), WRITE_TOKEN);
      await expectShown(page, before);
      const posted = page.waitForRequest((request) => request.method() === "POST");
      await addWithForm(page, "Added with a token");
      expect(await (await posted).headerValue("Authorization")).toBe(`Bearer ${WRITE_TOKEN}`);
      const added = { id: (before.at(-1)?.id ?? 0) + 1, title: "Added with a token", completed: false };
      await expectShown(page, [...before, added]);
      expect(await serverTasks(list(), READ_TOKEN)).toEqual([...before, added]);
    });

    test("keeps the token for this tab only: a reload keeps it, a new tab asks again", async () => {
      const page = await openPage(home(), { refused: [401] });
      await enterToken(page, READ_TOKEN);
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
      await page.reload();
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
      expect(await page.getByLabel("Token", { exact: true }).isVisible()).toBe(false);
      const other = await openPage(home(), { refused: [401] });
      await expect.poll(() => other.getByRole("alert").textContent()).toBe(NO_TOKEN);
    });

    test("refuses a token it cannot send, says what to change, and keeps none of it", async () => {
      const page = await openPage(home(), { refused: [401] });
      await enterToken(page, "abc€def-0123456789");
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toBe("A token is letters, digits and -._~+/, with = only at its end: check what you pasted");
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      await enterToken(page, READ_TOKEN);
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
    });

    test("drops a kept token that cannot be sent and asks for another", async () => {
      const page = await openPage(home(), { refused: [401] });
      // Once the page has asked for a token, a bad one is kept as if a person had kept it earlier.
      await expect.poll(() => page.getByRole("alert").textContent()).toBe(NO_TOKEN);
      await page.evaluate(() => sessionStorage.setItem("task-list-token", "abc€def-0123456789"));
      await page.reload();
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toBe("That token cannot be sent: use the token you were given, letters, digits and -._~+/ only");
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      await enterToken(page, READ_TOKEN);
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
    });

    test("asks again, with the service's message, when the token is not one it knows", async () => {
      const page = await openPage(home(), { refused: [401] });
      await enterToken(page, "not-a-known-token-0000");
      await expect.poll(() => page.getByRole("alert").textContent()).toBe(UNKNOWN_TOKEN);
      await enterToken(page, READ_TOKEN);
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
    });

    test("with a token that may only read, shows the list with its controls off and says why, until the token changes", async () => {
      const page = await openPage(home(), { refused: [401, 403] });
      await enterToken(page, READ_TOKEN);
      const before = await serverTasks(list(), READ_TOKEN);
      await expectShown(page, before);
      await addWithForm(page, "Not allowed");
      const notice = page.getByText(READ_ONLY, { exact: false });
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        `${READ_ONLY}. The lists are shown, and the controls that change them are off until you change the token`,
      );
      expect(await serverTasks(list(), READ_TOKEN)).toEqual(before);
      const first = before[0]?.title ?? "";
      const controls = [
        page.getByPlaceholder("What needs to be done?"),
        page.getByRole("checkbox", { name: "Mark all as complete" }),
        page.getByRole("checkbox", { name: first, exact: true }),
        page.getByRole("button", { name: `Edit ${first}`, exact: true }),
        page.getByRole("button", { name: `Delete ${first}`, exact: true }),
        page.getByRole("textbox", { name: "Title of a new list", exact: true }),
        page.getByRole("button", { name: "Create list", exact: true }),
      ];
      for (const control of controls) expect(await control.isDisabled()).toBe(true);
      // Nor does its title edit on a double click, or take the focus that Enter on it would use.
      const title = page.locator("#tasks .title-text").first();
      await title.dblclick();
      expect(await page.getByRole("textbox", { name: /^New title for / }).count()).toBe(0);
      expect(await title.evaluate((text) => (text as HTMLElement).tabIndex)).toBe(-1);
      // A reload keeps the token, and what it may do.
      await page.reload();
      await expectShown(page, before);
      for (const control of controls) expect(await control.isDisabled()).toBe(true);

      await page.getByRole("button", { name: "Change token", exact: true }).click();
      await enterToken(page, WRITE_TOKEN);
      await expectShown(page, before);
      for (const control of controls) expect(await control.isDisabled()).toBe(false);
      expect(await title.evaluate((text) => (text as HTMLElement).tabIndex)).toBe(0);
      expect(await notice.count()).toBe(0);
      await addWithForm(page, "Allowed now");
      await expect
        .poll(async () => (await serverTasks(list(), READ_TOKEN)).at(-1)?.title, { timeout: 30_000 })
        .toBe("Allowed now");
    });

    test("forgets the kept token on request, and asks for one again", async () => {
      const page = await openPage(home(), { refused: [401] });
      expect(await page.getByRole("button", { name: "Forget token" }).isVisible()).toBe(false);
      await enterToken(page, READ_TOKEN);
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
      await page.getByRole("button", { name: "Forget token", exact: true }).click();
      await expect.poll(() => page.getByRole("alert").first().textContent()).toBe(NO_TOKEN);
      expect(await page.evaluate(() => sessionStorage.getItem("task-list-token"))).toBe(null);
      expect(await page.getByRole("button", { name: "Forget token" }).isVisible()).toBe(false);
      await enterToken(page, READ_TOKEN);
      await expectShown(page, await serverTasks(list(), READ_TOKEN));
    });

    test("a list read with a token is not kept for a tab without one, also when the token is forgotten", async () => {
      const page = await openPage(home(), { refused: [401] });
      await enterToken(page, WRITE_TOKEN);
      const tasks = await serverTasks(list(), READ_TOKEN);
      const first = tasks[0]?.title;
      if (first === undefined) throw new Error("The list has no task to tick");
      await expectShown(page, tasks);
      await page.getByRole("button", { name: "Forget token", exact: true }).click();
      await expect.poll(() => page.getByRole("alert").first().textContent()).toBe(NO_TOKEN);
      // A tick without the token shows at once: the list shown changes after the token went.
      await page.getByRole("checkbox", { name: first, exact: true }).click();
      // Closing the tab keeps at once what the page would keep a moment later.
      await page.close();
      const other = await openPage(home(), { refused: [401] });
      await expect.poll(() => other.getByRole("alert").textContent()).toBe(NO_TOKEN);
      expect(await shownTasks(other)).toEqual([]);
    });
  });

  describe(`the home page of a ${runtime} server where only adding needs a token`, () => {
    const server = useServer(runtime, { WRITE_TOKENS: WRITE_TOKEN });
    const openPage = useBrowser();
    const list = () => `${server().baseUrl}/tasks`;

    test("shows the list without a token, asks for one when adding answers 401, then adds the task with it", async () => {
      const page = await openPage(`${server().baseUrl}/`, { refused: [401] });
      const before = await serverTasks(list());
      await expectShown(page, before);
      await addWithForm(page, "Added once a token was given");
      await expect.poll(() => page.getByRole("alert").textContent()).toBe(NO_TOKEN);
      await enterToken(page, WRITE_TOKEN);
      const added = { id: (before.at(-1)?.id ?? 0) + 1, title: "Added once a token was given", completed: false };
      await expectShown(page, [...before, added]);
      expect(await serverTasks(list())).toEqual([...before, added]);
    });
  });
}
