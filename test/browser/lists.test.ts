// The lists on the home page in Chromium: creating one, switching, each list's page on its own paths, and a deletion.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { useServer } from "../support/server-fixture.ts";
import {
  addFromElsewhere,
  addWithForm,
  brokenWords,
  createFromElsewhere,
  expectShown,
  serverTasks,
  useBrowser,
} from "./browser.ts";

/** The path of a named list's page, as the page's address shows it. */
const LIST_PAGE = /\/lists\/([a-z0-9]{26})\/$/;

/** The links to the lists the page shows, in order, by their text, the current one marked with a `*`. */
function shownLists(page: Page): Promise<string[]> {
  return page
    .locator("#list-links a")
    .evaluateAll((links) =>
      links.map((link) => `${link.getAttribute("aria-current") === "page" ? "*" : ""}${link.textContent}`),
    );
}

/** Creates a list from the page's form and waits for its page; returns the new list's name. */
async function createFromPage(page: Page, title: string): Promise<string> {
  await page.getByRole("textbox", { name: "Title of a new list", exact: true }).fill(title);
  await page.getByRole("button", { name: "Create list", exact: true }).click();
  await page.waitForURL(LIST_PAGE);
  return LIST_PAGE.exec(new URL(page.url()).pathname)?.[1] ?? "";
}

/** Records the method and path of each request the page makes from now on, as "GET /tasks". */
function requestsOf(page: Page): string[] {
  const requests: string[] = [];
  page.on("request", (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  return requests;
}

describe("the lists on the home page", () => {
  const server = useServer("node", {});
  const openPage = useBrowser();
  const base = () => server().baseUrl;

  test("creates a list, switches to it, adds tasks there that a second page follows live, and switches back to the default list's own tasks", async () => {
    const defaultTasks = await serverTasks(`${base()}/tasks`);
    const page = await openPage(`${base()}/`);
    const elsewhere = await openPage(`${base()}/`);
    await expectShown(page, defaultTasks);
    await expect.poll(() => shownLists(page)).toEqual(["*Tasks"]);

    const made = requestsOf(page);
    const name = await createFromPage(page, "Groceries");
    await expect.poll(() => shownLists(page)).toEqual(["Tasks", "*Groceries"]);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Groceries");
    expect(await page.title()).toBe("Groceries");
    await expectShown(page, []);

    const second = await openPage(page.url());
    const secondRequests = requestsOf(second);
    await second.waitForResponse((res) => new URL(res.url()).pathname === `/lists/${name}/tasks/events`);
    const milk = { id: 1, title: "Milk", completed: false };
    const bread = { id: 2, title: "Bread", completed: false };
    const added = [milk, bread];
    const milkDone = [{ ...milk, completed: true }, bread];
    await addWithForm(page, "Milk");
    await expectShown(page, [milk]);
    await addWithForm(page, "Bread");
    await expectShown(page, added);
    await expectShown(second, added);
    await second.getByRole("checkbox", { name: "Milk", exact: true }).click();
    await expectShown(page, milkDone);
    expect(await serverTasks(`${base()}/lists/${name}/tasks`)).toEqual(milkDone);
    expect(await serverTasks(`${base()}/tasks`)).toEqual(defaultTasks);
    // Every request of the list's pages went to its own paths, or to the lists.
    const requests = made.slice(made.indexOf("POST /lists") + 1);
    const elsewhereRequests = [...requests, ...secondRequests].filter(
      (request) => !request.endsWith(" /lists") && !request.includes(` /lists/${name}/`),
    );
    expect(elsewhereRequests).toEqual([]);
    expect(requests).toContain(`GET /lists/${name}/tasks/events`);
    expect(requests).toContain(`POST /lists/${name}/tasks`);
    expect(secondRequests).toContain(`PATCH /lists/${name}/tasks/1`);

    // A page opened before the list was created shows it too.
    await expect.poll(() => shownLists(elsewhere), { timeout: 30_000 }).toEqual(["*Tasks", "Groceries"]);

    await page.getByRole("link", { name: "Tasks", exact: true }).click();
    await page.waitForURL(`${base()}/`);
    await expectShown(page, defaultTasks);
    await expect.poll(() => shownLists(page)).toEqual(["*Tasks", "Groceries"]);
    await page.getByRole("link", { name: "Groceries", exact: true }).click();
    await page.waitForURL(`${base()}/lists/${name}/`);
    await expectShown(page, milkDone);
  });

  test("writes that wait for one list are never sent to another", async () => {
    const name = await createFromElsewhere(base(), "Errands");
    let offline = false;
    const page = await openPage(`${base()}/lists/${name}/`, {
      allowed: [/net::ERR_INTERNET_DISCONNECTED/],
      before: (tab) =>
        tab.route(/\/tasks(\/|\?|$)/, (route) => (offline ? route.abort("internetdisconnected") : route.fallback())),
    });
    await expectShown(page, []);
    offline = true;
    await addWithForm(page, "Post the letter");
    await page
      .getByRole("list", { name: "Waiting to be added", exact: true })
      .getByRole("listitem")
      .filter({ has: page.getByText("Post the letter", { exact: true }) })
      .getByText("waiting to be added", { exact: true })
      .waitFor();

    const defaultTasks = await serverTasks(`${base()}/tasks`);
    const home = await openPage(`${base()}/`);
    await expectShown(home, defaultTasks);
    expect(await home.locator("#queued li").count()).toBe(0);
    expect(await home.getByText(/^The service cannot be reached/).count()).toBe(0);

    offline = false;
    await page.getByText(/^The service cannot be reached/).waitFor({ state: "hidden", timeout: 30_000 });
    const sent = [{ id: 1, title: "Post the letter", completed: false }];
    await expectShown(page, sent);
    expect(await serverTasks(`${base()}/lists/${name}/tasks`)).toEqual(sent);
    expect(await serverTasks(`${base()}/tasks`)).toEqual(defaultTasks);
  });

  test("a named list's page, with many lists of long titles, fits a phone's width and a desktop's, light and dark", async () => {
    const titles = [
      "Holiday in the mountains: what to pack, book and buy before the weekend trip",
      `Unbroken${"x".repeat(120)}`,
      ...["Work", "Home", "Garden", "Books to read", "Gifts"],
    ];
    const names = [];
    for (const title of titles) names.push(await createFromElsewhere(base(), title));
    expect((await addFromElsewhere(`${base()}/lists/${names[0]}/tasks`, "Short one")).status).toBe(200);
    const page = await openPage(`${base()}/lists/${names[0]}/`);
    await expectShown(page, [{ id: 1, title: "Short one", completed: false }]);
    await expect.poll(() => shownLists(page)).toContain(`*${titles[0]}`);
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

  for (const how of ["following its events", "polling, its events out of reach"] as const) {
    test(`a list deleted while its page is open, ${how}: the page says so, offers the other lists and stops reading it`, async () => {
      const name = await createFromElsewhere(base(), `Short-lived, ${how}`);
      const keptTitle = `Kept while ${how}`;
      const kept = await createFromElsewhere(base(), keptTitle);
      expect((await addFromElsewhere(`${base()}/lists/${name}/tasks`, "Soon gone")).status).toBe(200);
      const polling = how !== "following its events";
      let requests: string[] = [];
      let streamOpen: Promise<unknown> = Promise.resolve();
      const page = await openPage(`${base()}/lists/${name}/`, {
        refused: [410],
        allowed: polling ? [/net::ERR_FAILED/] : [],
        before: (tab) => {
          requests = requestsOf(tab);
          const events = `/lists/${name}/tasks/events`;
          if (!polling) streamOpen = tab.waitForResponse((res) => new URL(res.url()).pathname === events);
          return polling ? tab.route(/\/tasks\/events/, (route) => route.abort("failed")) : Promise.resolve();
        },
      });
      await expectShown(page, [{ id: 1, title: "Soon gone", completed: false }]);
      await streamOpen;
      await expect.poll(() => requests).toContain(`GET /lists/${name}/tasks/events`);

      const deletedAt = requests.length;
      expect((await fetch(`${base()}/lists/${name}`, { method: "DELETE" })).status).toBe(204);
      const notice = page.getByText(/^This list was deleted, and its tasks with it/);
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        "This list was deleted, and its tasks with it. Choose another list, or create one.",
      );
      expect(await page.locator("#tasks").isVisible()).toBe(false);
      await expect.poll(() => shownLists(page)).not.toContain(`*Short-lived, ${how}`);
      expect(await page.getByRole("link", { name: keptTitle, exact: true }).getAttribute("href")).toBe(
        `/lists/${kept}/`,
      );

      // Longer than the page waits between polls, and before it asks for events again: it asks for neither.
      const read = requests.length;
      await page.waitForTimeout(7_000);
      expect(requests.slice(read).filter((request) => request.includes(`/lists/${name}/`))).toEqual([]);
      // Following the events, the page learns it from the stream's `gone` alone, with no read that answers 410.
      if (!polling) {
        expect(requests.slice(deletedAt).filter((request) => request.includes(`/lists/${name}/`))).toEqual([]);
      }
      await page.getByRole("link", { name: keptTitle, exact: true }).click();
      await page.waitForURL(`${base()}/lists/${kept}/`);
      await expectShown(page, []);
    });
  }
});

describe("the lists on the home page of a server where writing needs a token", () => {
  const WRITE_TOKEN = "lists-write-token-0123456789";
  const server = useServer("node", { WRITE_TOKENS: WRITE_TOKEN });
  const openPage = useBrowser();

  test("creating a list asks for a token when the service answers 401, then creates it once with the token", async () => {
    const page = await openPage(`${server().baseUrl}/`, { refused: [401] });
    await expect.poll(() => shownLists(page)).toEqual(["*Tasks"]);
    const posts: (string | null)[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.headers().authorization ?? null);
    });
    await page.getByRole("textbox", { name: "Title of a new list", exact: true }).fill("Shared with a token");
    await page.getByRole("button", { name: "Create list", exact: true }).click();
    await page.getByLabel("Token", { exact: true }).fill(WRITE_TOKEN);
    await page.getByLabel("Token", { exact: true }).press("Enter");
    await page.waitForURL(LIST_PAGE);
    await expect.poll(() => shownLists(page)).toEqual(["Tasks", "*Shared with a token"]);
    expect(posts).toEqual([null, `Bearer ${WRITE_TOKEN}`]);
    const lists = (await (await fetch(`${server().baseUrl}/lists`)).json()) as { title: string }[];
    expect(lists.map((list) => list.title)).toEqual(["Tasks", "Shared with a token"]);
  });
});

describe("the lists on the home page of a server under a base path", () => {
  const server = useServer("node", { BASE_PATH: "/api/v1" });
  const openPage = useBrowser();
  const base = () => `${server().baseUrl}/api/v1`;

  test("a list created from the page opens under the base path, and its tasks and the lists are read there", async () => {
    const page = await openPage(base());
    await expect.poll(() => shownLists(page)).toEqual(["*Tasks"]);
    const name = await createFromPage(page, "Under a prefix");
    expect(new URL(page.url()).pathname).toBe(`/api/v1/lists/${name}/`);
    await addWithForm(page, "Reached through the prefix");
    const added = [{ id: 1, title: "Reached through the prefix", completed: false }];
    await expectShown(page, added);
    expect(await serverTasks(`${base()}/lists/${name}/tasks`)).toEqual(added);
    expect(await page.getByRole("link", { name: "Tasks", exact: true }).getAttribute("href")).toBe("/api/v1/");
    expect(await page.getByRole("link", { name: "OpenAPI document", exact: true }).getAttribute("href")).toBe(
      "/api/v1/openapi.json",
    );
  });
});
