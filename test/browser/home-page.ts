import { describe, expect, test } from "vitest";
import type { RunningServer, Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, addWithForm, expectShown, newTaskField, serverTasks, useBrowser } from "./browser.ts";

const INITIAL = [
  { id: 1, title: "Read the task list specification", completed: true },
  { id: 2, title: "Build the task list service", completed: false },
];
const LIMITED = { BASE_PATH: "/api/v1", MAX_BODY_BYTES: "256", MAX_TASKS: "4" };

/**
 * What a person does with the home page in Chromium, against two real servers on `runtime`: one
 * with the default settings, one under a base path with limits small enough to reach.
 */
export function describeHomePage(runtime: Runtime): void {
  describe(`the home page of a ${runtime} server with the default settings`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("shows the initial tasks, oldest first, each with whether it is done", async () => {
      const page = await openPage(home());
      await expectShown(page, INITIAL);
      expect(await page.getByText("1 item left", { exact: true }).isVisible()).toBe(true);
    });

    test("adds a task from the form and shows it at the end of the list", async () => {
      const page = await openPage(home());
      const before = await serverTasks(list());
      await expectShown(page, before);
      await addWithForm(page, "  Added from the form  ");
      const added = { id: (before.at(-1)?.id ?? 0) + 1, title: "Added from the form", completed: false };
      await expectShown(page, [...before, added]);
      expect(await serverTasks(list())).toEqual([...before, added]);
      expect(await newTaskField(page).inputValue()).toBe("");
    });

    test("adds a task once when the answer to its POST is lost and the page sends it again", async () => {
      const keys: (string | null)[] = [];
      const page = await openPage(home(), {
        allowed: [/net::ERR_CONNECTION_RESET/],
        before: (tab) =>
          tab.route(list(), async (route) => {
            if (route.request().method() !== "POST") return route.fallback();
            keys.push(await route.request().headerValue("Idempotency-Key"));
            // The first POST reaches the server, which adds the task; its answer never comes back.
            if (keys.length > 1) return route.fallback();
            await route.fetch();
            return route.abort("connectionreset");
          }),
      });
      const before = await serverTasks(list());
      await expectShown(page, before);
      await addWithForm(page, "Added once despite a lost answer");
      // The page sends it again from its outbox, with the same key.
      await expect.poll(() => keys.length, { timeout: 30_000 }).toBe(2);
      const added = { id: (before.at(-1)?.id ?? 0) + 1, title: "Added once despite a lost answer", completed: false };
      await expectShown(page, [...before, added]);
      expect(await serverTasks(list())).toEqual([...before, added]);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(keys[1]).toBe(keys[0]);
    });

    test("shows a task that another client added, without being reloaded", async () => {
      const page = await openPage(home());
      await expectShown(page, await serverTasks(list()));
      await page.evaluate(() => Object.assign(window, { notReloaded: true }));
      expect((await addFromElsewhere(list(), "Added by another client")).status).toBe(200);
      await expectShown(page, await serverTasks(list()));
      expect(await page.evaluate(() => "notReloaded" in window)).toBe(true);
    });

    test("follows the list's events: a task added elsewhere shows up without the page asking for the list again", async () => {
      const page = await openPage(home());
      await page.waitForResponse((res) => res.url().startsWith(`${list()}/events`));
      await expectShown(page, await serverTasks(list()));
      const reads: string[] = [];
      page.on("request", (request) => {
        if (request.url().startsWith(list()) && !request.url().startsWith(`${list()}/events`))
          reads.push(request.url());
      });
      expect((await addFromElsewhere(list(), "Pushed to the page")).status).toBe(200);
      await expectShown(page, await serverTasks(list()));
      expect(reads).toEqual([]);
    });

    test("follows the events from the list's change number, and shows a task added just as it asks for them", async () => {
      const events = `${list()}/events`;
      const change = changeOf((await fetch(list())).headers.get("ETag"));
      const cursors: (string | null)[] = [];
      let added: Response | undefined;
      const page = await openPage(home(), {
        before: (tab) =>
          tab.route(`${events}*`, async (route) => {
            cursors.push(new URL(route.request().url()).searchParams.get("after"));
            // Another client's task lands after the page learned the change number, before its stream starts.
            added ??= await addFromElsewhere(list(), "Added as the page subscribes");
            await route.fallback();
          }),
      });
      await expect.poll(() => added?.status, { timeout: 30_000 }).toBe(200);
      const now = await serverTasks(list());
      expect(now.at(-1)?.title).toBe("Added as the page subscribes");
      await expectShown(page, now);
      expect(change).toBeGreaterThan(0);
      expect(cursors).toEqual([String(change)]);
    });

    test("while the events cannot be had, reads the whole list again with If-None-Match, then follows them again", async () => {
      const events = `${list()}/events`;
      const page = await openPage(home(), {
        refused: [503],
        before: (tab) =>
          tab.route(`${events}*`, (route) =>
            route.fulfill({ status: 503, contentType: "application/json", body: '{"message":"Not now"}' }),
          ),
      });
      const notModified = await page.waitForResponse((res) => res.url() === list() && res.status() === 304, {
        timeout: 30_000,
      });
      const etag = (await fetch(list())).headers.get("ETag");
      expect(await notModified.request().headerValue("If-None-Match")).toBe(etag);
      expect(conditionalGets(server())).toBeGreaterThan(0);
      await page.unroute(`${events}*`);
      const followed = page.waitForResponse((res) => res.url().startsWith(events) && res.status() === 200, {
        timeout: 30_000,
      });
      expect((await addFromElsewhere(list(), "Seen while polling")).status).toBe(200);
      await expectShown(page, await serverTasks(list()));
      await followed;
    });
  });

  describe(`the home page of a ${runtime} server under a base path, with small limits`, () => {
    const server = useServer(runtime, LIMITED);
    const openPage = useBrowser();
    const base = () => `${server().baseUrl}${LIMITED.BASE_PATH}`;
    const list = () => `${base()}/tasks`;

    test("opens at the base path with or without its slash, and reads and adds under it", async () => {
      const page = await openPage(base());
      expect(page.url()).toBe(base());
      await expectShown(page, INITIAL);
      const posted = page.waitForRequest((request) => request.method() === "POST");
      await addWithForm(page, "Under the base path");
      expect((await posted).url()).toBe(list());
      const after = [...INITIAL, { id: 3, title: "Under the base path", completed: false }];
      await expectShown(page, after);
      const slashed = await openPage(`${base()}/`);
      await expectShown(slashed, after);
    });

    test("links to the OpenAPI document under the base path from either address", async () => {
      for (const address of [base(), `${base()}/`]) {
        const page = await openPage(address);
        const href = await page
          .getByRole("link", { name: "OpenAPI document" })
          .evaluate((a) => (a as HTMLAnchorElement).href);
        expect(href).toBe(`${base()}/openapi.json`);
      }
    });

    test("links to the OpenAPI document under the base path", async () => {
      const page = await openPage(`${base()}/`);
      const href = await page
        .getByRole("link", { name: "OpenAPI document" })
        .evaluate((a) => (a as HTMLAnchorElement).href);
      expect(href).toBe(`${base()}/openapi.json`);
      const res = await fetch(href);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { openapi: string }).openapi).toBe("3.1.0");
    });

    test("shows the message of a POST refused as too large, and keeps the title to shorten", async () => {
      const page = await openPage(`${base()}/`, { refused: [413] });
      const before = await serverTasks(list());
      await expectShown(page, before);
      const title = "A title far too long for this server's 256-byte limit ".repeat(5);
      await addWithForm(page, title);
      await expect.poll(() => page.getByRole("alert").textContent()).toBe("Request body must be at most 256 bytes");
      expect(await page.getByPlaceholder("What needs to be done?").inputValue()).toBe(title);
      expect(await serverTasks(list())).toEqual(before);
    });

    test("shows the message of a POST refused because the list is full", async () => {
      for (let count = (await serverTasks(list())).length; count < 4; count++) {
        expect((await addFromElsewhere(list(), `Filling the list, task ${count + 1}`)).status).toBe(200);
      }
      const page = await openPage(`${base()}/`, { refused: [507] });
      const full = await serverTasks(list());
      expect(full).toHaveLength(4);
      await expectShown(page, full);
      await addWithForm(page, "One too many");
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toBe("Task list is full: it holds the maximum of 4 tasks");
      expect(await serverTasks(list())).toEqual(full);
    });
  });
}

/** The change number a list's ETag names: its version is `<instance>-<change number>`. */
function changeOf(etag: string | null): number {
  const change = /^(?:W\/)?"[^"]*-(\d+)"$/.exec(etag ?? "")?.[1];
  if (change === undefined) throw new Error(`The list's ETag ${etag} names no change number`);
  return Number(change);
}

/** How many GETs of the list the server has logged answering 304. */
function conditionalGets(server: RunningServer): number {
  return server
    .output()
    .split("\n")
    .map(logEntry)
    .filter((entry) => entry?.method === "GET" && entry.path === "/tasks" && entry.status === 304).length;
}

function logEntry(line: string): { method?: string; path?: string; status?: number } | undefined {
  try {
    return JSON.parse(line);
  } catch {
    // One of the runtime's own lines, not the service's log.
    return undefined;
  }
}
