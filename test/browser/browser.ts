import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, onTestFinished } from "vitest";
import { launchChromium } from "./chromium.ts";

/** A task as the page shows it. */
export interface ShownTask {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/** What {@link OpenPage} accepts beside the URL. */
export interface OpenOptions {
  /**
   * Statuses the test makes the server answer on purpose (a refused POST, a 401). Chromium logs
   * every 4xx or 5xx load as a console error of its own; those, and only those, are expected.
   */
  readonly refused?: readonly number[];
  /** Other console errors the test causes on purpose, such as a stream it cuts off. */
  readonly allowed?: readonly RegExp[];
  /** Prepares the tab before it opens the page, such as routes that stand in for the server. */
  readonly before?: (page: Page) => Promise<unknown>;
}

/** Opens `url` in a new tab; when the test finishes, closes it and checks what the tab did. */
export type OpenPage = (url: string, options?: OpenOptions) => Promise<Page>;

const REFUSED_LOAD = /^Failed to load resource: the server responded with a status of (\d{3})\b/;

/**
 * Launches Chromium before the enclosing describe's tests and closes it after them; call it after
 * `useServer`, so that the browser lets go of its connections before the server stops. Each page it
 * opens is watched: once its test finishes, the test fails if the page made a request to another
 * origin, threw, or logged a console error other than the loads refused on purpose.
 */
export function useBrowser(): OpenPage {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return async (url, { refused = [], allowed = [], before } = {}) => {
    if (browser === undefined) throw new Error("Chromium has not started");
    const page = await browser.context.newPage();
    const origin = new URL(url).origin;
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).origin !== origin) foreign.push(request.url());
    });
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const status = Number(REFUSED_LOAD.exec(message.text())?.[1]);
      if (!refused.includes(status) && !allowed.some((error) => error.test(message.text()))) {
        errors.push(message.text());
      }
    });
    page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
    onTestFinished(async () => {
      await page.close();
      expect(foreign, "requests to other origins").toEqual([]);
      expect(errors, "console errors and uncaught exceptions").toEqual([]);
    });
    await before?.(page);
    await page.goto(url);
    return page;
  };
}

/** The list as the page holds it, whatever the filter: each task's id, title as shown and whether it is checked. */
export async function shownTasks(page: Page): Promise<ShownTask[]> {
  return page.locator("#tasks > li").evaluateAll((items) =>
    items.map((li) => ({
      id: Number((li as HTMLElement).dataset.id),
      title: li.querySelector(".title-text")?.textContent ?? "",
      completed: (li.querySelector(".done-box") as HTMLInputElement | null)?.checked ?? false,
    })),
  );
}

/** Waits until the page shows exactly `tasks`: the page polls, so what it shows catches up. */
export async function expectShown(page: Page, tasks: readonly ShownTask[], timeout = 30_000): Promise<void> {
  await expect.poll(() => shownTasks(page), { timeout, interval: 100 }).toEqual(tasks);
}

/** The list as the server serves it, read with `token` as a bearer token when one is given. */
export async function serverTasks(listUrl: string, token?: string): Promise<ShownTask[]> {
  const res = await fetch(listUrl, { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as ShownTask[];
}

/** Creates a list as another client would, straight to the API; returns its name. */
export async function createFromElsewhere(baseUrl: string, title: string): Promise<string> {
  const res = await fetch(`${baseUrl}/lists`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ title }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { name: string }).name;
}

/** Adds a task as another client would, straight to the API. */
export async function addFromElsewhere(listUrl: string, title: string, completed = false): Promise<Response> {
  return fetch(listUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ title, completed }),
  });
}

/** Changes a task as another client would, with the ETag it reads first. */
export async function patchFromElsewhere(taskUrl: string, patch: object): Promise<Response> {
  const etag = (await fetch(taskUrl)).headers.get("ETag") ?? "";
  return fetch(taskUrl, {
    method: "PATCH",
    headers: { "Content-Type": "application/merge-patch+json", "If-Match": etag },
    body: JSON.stringify(patch),
  });
}

/** The field that adds a task. */
export function newTaskField(page: Page) {
  return page.getByPlaceholder("What needs to be done?", { exact: true });
}

/** Adds a task through the page's new-task field, as a person would: typing its title and Enter. */
export async function addWithForm(page: Page, title: string): Promise<void> {
  await newTaskField(page).fill(title);
  await newTaskField(page).press("Enter");
}

/**
 * The words of the page's text that are drawn on more than one line, but for those longer than the
 * width inside their element, which nothing but breaking them fits.
 */
export function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent === null || parent.offsetParent === null) continue;
      // The width a word has to fit in: the element's, but for its padding and borders.
      const style = getComputedStyle(parent);
      const width =
        parent.getBoundingClientRect().width -
        ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"].reduce(
          (sum, side) => sum + Number.parseFloat(style.getPropertyValue(side.replace(/[A-Z]/g, "-$&").toLowerCase())),
          0,
        );
      const text = node.textContent ?? "";
      for (const match of text.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const parts = [...range.getClientRects()];
        const lines = new Set(parts.map((rect) => Math.round(rect.top)));
        // Its parts laid end to end: the width the word would take on one line.
        const whole = parts.reduce((sum, rect) => sum + rect.width, 0);
        if (lines.size > 1 && whole <= width) broken.push(match[0]);
      }
    }
    return broken;
  });
}
