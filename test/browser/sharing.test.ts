// Sharing a list in Chromium: share links opened, read links, the Share panel's links made, copied and revoked.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { useServer } from "../support/server-fixture.ts";
import { violations } from "./axe.ts";
import { addWithForm, expectShown, newTaskField, serverTasks, useBrowser } from "./browser.ts";
import { screenshot } from "./screenshots.ts";

const READ_TOKEN = "sharing-read-token-0123456789";
const WRITE_TOKEN = "sharing-write-token-0123456789";
const AS_WRITER = { Authorization: `Bearer ${WRITE_TOKEN}` };
const READ_LINK = "This link may only read the list: it is shown, and the controls that change it are off";
const LINK_ENDED =
  "This link was revoked or has expired: ask whoever shared it for a new one, or give a token to open the list";
// A page on a link reads /lists, which no list key opens, and learns what its key may do from an
// add the service refuses, with 400 or 403, before it reads a body.
const LINK_REFUSALS = [400, 401, 403];

/** Creates the list `name` with the deployment's write token. */
async function createList(baseUrl: string, name: string): Promise<void> {
  const res = await fetch(`${baseUrl}/lists/${name}`, {
    method: "PUT",
    headers: { ...AS_WRITER, "Content-Type": "application/json" },
    body: JSON.stringify({ title: `The ${name} list` }),
  });
  expect(res.status).toBe(201);
}

/** Makes a key of the list `name` with the deployment's write token, as another client would; returns the key. */
async function makeKey(baseUrl: string, name: string, access: "read" | "write"): Promise<string> {
  const res = await fetch(`${baseUrl}/lists/${name}/keys`, {
    method: "POST",
    headers: { ...AS_WRITER, "Content-Type": "application/json" },
    body: JSON.stringify({ access, label: `A ${access} key` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

/** The labels of the keys of the list `name`, as the service lists them. */
async function keyLabels(baseUrl: string, name: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/lists/${name}/keys`, { headers: AS_WRITER });
  expect(res.status).toBe(200);
  return ((await res.json()) as { label: string }[]).map((key) => key.label);
}

/** Whether the controls that only a deployment token may use can be seen. */
async function managingShown(page: Page): Promise<boolean[]> {
  return Promise.all(
    ["Share", "Rename list"].map((name) => page.getByRole("button", { name, exact: true }).isVisible()),
  );
}

describe("sharing a list from its page", () => {
  const server = useServer("node", { READ_TOKENS: READ_TOKEN, WRITE_TOKENS: WRITE_TOKEN });
  const openPage = useBrowser();
  const base = () => server().baseUrl;

  test("a write link opens its list without a token, leaves the address at once, and adds a task with its key, live feed included", async () => {
    await createList(base(), "errands");
    const key = await makeKey(base(), "errands", "write");
    // Every request the tab makes to the list, its live feed included, from the first.
    const sent: { path: string; authorization: Promise<string | null> }[] = [];
    const page = await openPage(`${base()}/lists/errands/#key=${key}`, {
      refused: LINK_REFUSALS,
      before: async (tab) =>
        tab.on("request", (request) => {
          const path = new URL(request.url()).pathname;
          if (path.startsWith("/lists/errands/tasks"))
            sent.push({ path, authorization: request.headerValue("Authorization") });
        }),
    });
    expect(page.url()).toBe(`${base()}/lists/errands/`);
    await expectShown(page, []);
    expect(await managingShown(page)).toEqual([false, false]);
    await expect
      .poll(() => sent.some(({ path }) => path === "/lists/errands/tasks/events"), { timeout: 30_000 })
      .toBe(true);
    const posted = page.waitForRequest((request) => request.method() === "POST" && request.postData() !== null);
    await addWithForm(page, "Through a link");
    expect(await (await posted).headerValue("Authorization")).toBe(`Bearer ${key}`);
    const added = [{ id: 1, title: "Through a link", completed: false }];
    await expectShown(page, added);
    expect(await serverTasks(`${base()}/lists/errands/tasks`, READ_TOKEN)).toEqual(added);
    expect(await page.getByText(READ_LINK).count()).toBe(0);
    expect(new Set(await Promise.all(sent.map(({ authorization }) => authorization)))).toEqual(
      new Set([`Bearer ${key}`]),
    );
  });

  test("a read link of the default list shows it with its controls off, says why, and nothing can be written", async () => {
    const key = await makeKey(base(), "default", "read");
    const tasks = await serverTasks(`${base()}/tasks`, READ_TOKEN);
    const first = tasks[0]?.title ?? "";
    const page = await openPage(`${base()}/lists/default/#key=${key}`, { refused: LINK_REFUSALS });
    await expectShown(page, tasks);
    expect(page.url()).toBe(`${base()}/lists/default/`);
    await page.getByText(READ_LINK, { exact: true }).waitFor({ timeout: 30_000 });
    const controls = [
      newTaskField(page),
      page.getByRole("checkbox", { name: "Mark all as complete" }),
      page.getByRole("checkbox", { name: first, exact: true }),
      page.getByRole("button", { name: `Edit ${first}`, exact: true }),
      page.getByRole("button", { name: `Delete ${first}`, exact: true }),
    ];
    for (const control of controls) expect(await control.isDisabled()).toBe(true);
    expect(await managingShown(page)).toEqual([false, false]);
    // A person cannot put a title in the field, nor does the keyboard reach a task's controls.
    await page.keyboard.type("Not allowed");
    await page.keyboard.press("Enter");
    expect(await newTaskField(page).inputValue()).toBe("");
    expect(await serverTasks(`${base()}/tasks`, READ_TOKEN)).toEqual(tasks);
  });

  test("makes a labelled link from Share, lists and copies it; revoking it takes it away and a tab on it is told", async () => {
    await createList(base(), "garden");
    const page = await openPage(`${base()}/lists/garden/`, { refused: [401] });
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base() });
    await page.getByLabel("Token", { exact: true }).fill(WRITE_TOKEN);
    await page.getByLabel("Token", { exact: true }).press("Enter");
    await expectShown(page, []);

    const share = page.getByRole("button", { name: "Share", exact: true });
    await share.click();
    expect(await share.getAttribute("aria-expanded")).toBe("true");
    await page.getByRole("textbox", { name: "Label", exact: true }).fill("For Sam");
    await page.getByRole("combobox", { name: "Access", exact: true }).selectOption({ label: "Read and write" });
    await page.getByRole("button", { name: "Make link", exact: true }).click();
    const field = page.getByRole("textbox", { name: "New link", exact: true });
    await expect.poll(() => field.inputValue(), { timeout: 30_000 }).toMatch(/#key=./);
    const link = await field.inputValue();
    expect(link).toMatch(new RegExp(`^${base()}/lists/garden/#key=[A-Za-z0-9._~+/-]+=*$`));
    expect(await keyLabels(base(), "garden")).toEqual(["For Sam"]);
    const row = page.locator("#share-links li");
    expect(await row.allTextContents()).toEqual(["For SamRead and write, never expiresRevoke"]);
    expect(await violations(page), "the Share panel with a link made").toEqual([]);
    await screenshot(page, "home-page-share.png");

    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText("Copied the link", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

    // Closed and opened again, the panel lists the link as the service has it, and no longer shows the key.
    await page.getByRole("button", { name: "Close", exact: true }).click();
    await share.click();
    await expect
      .poll(() => row.allTextContents(), { timeout: 30_000 })
      .toEqual(["For SamRead and write, never expiresRevoke"]);
    expect(await field.isVisible()).toBe(false);

    const other = await openPage(link, { refused: LINK_REFUSALS });
    await expectShown(other, []);
    await addWithForm(other, "Added by Sam");
    await expectShown(page, [{ id: 1, title: "Added by Sam", completed: false }]);

    await page.getByRole("button", { name: "Revoke the link “For Sam”", exact: true }).click();
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(0);
    expect(await keyLabels(base(), "garden")).toEqual([]);
    expect(await page.getByText("No links yet", { exact: true }).isVisible()).toBe(true);

    // The tab on the link learns it at its next request to the service: here, an add.
    await addWithForm(other, "After the revocation");
    await other.getByText(LINK_ENDED, { exact: true }).waitFor({ timeout: 30_000 });
    expect(await other.evaluate(() => sessionStorage.getItem("task-list-token"))).toBe(null);
    expect(await serverTasks(`${base()}/lists/garden/tasks`, READ_TOKEN)).toEqual([
      { id: 1, title: "Added by Sam", completed: false },
    ]);
  });

  test("where the browser refuses the clipboard, Copy selects the link in its field and says so", async () => {
    await createList(base(), "kitchen");
    const page = await openPage(`${base()}/lists/kitchen/`, {
      refused: [401],
      before: (tab) =>
        tab.addInitScript(() => {
          navigator.clipboard.writeText = () => Promise.reject(new DOMException("Refused", "NotAllowedError"));
        }),
    });
    await page.getByLabel("Token", { exact: true }).fill(WRITE_TOKEN);
    await page.getByLabel("Token", { exact: true }).press("Enter");
    await expectShown(page, []);
    await page.getByRole("button", { name: "Share", exact: true }).click();
    await page.getByRole("button", { name: "Make link", exact: true }).click();
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page
      .getByText("The browser did not let the page copy: the link is selected in the field, copy it from there")
      .waitFor({ timeout: 30_000 });
    const selected = await page.evaluate(() => {
      const field = document.activeElement as HTMLInputElement;
      return { id: field.id, all: field.selectionStart === 0 && field.selectionEnd === field.value.length };
    });
    expect(selected).toEqual({ id: "share-link", all: true });
    expect(await page.getByRole("textbox", { name: "New link" }).getAttribute("readonly")).toBe("");
  });

  test("a token that may only read turns Share off with the other controls once the service says so", async () => {
    const page = await openPage(`${base()}/`, { refused: [401, 403] });
    await page.getByLabel("Token", { exact: true }).fill(READ_TOKEN);
    await page.getByLabel("Token", { exact: true }).press("Enter");
    await expectShown(page, await serverTasks(`${base()}/tasks`, READ_TOKEN));
    const share = page.getByRole("button", { name: "Share", exact: true });
    expect(await share.isDisabled()).toBe(false);
    await addWithForm(page, "Not allowed");
    await expect.poll(() => share.isDisabled(), { timeout: 30_000 }).toBe(true);
  });

  test("a tab its stream told of the revocation still says the link ended after a write it then sends is refused", async () => {
    await createList(base(), "porch");
    const key = await makeKey(base(), "porch", "write");
    const page = await openPage(`${base()}/lists/porch/#key=${key}`, { refused: LINK_REFUSALS });
    await expectShown(page, []);
    const listed = await fetch(`${base()}/lists/porch/keys`, { headers: AS_WRITER });
    const [{ id }] = (await listed.json()) as [{ id: string }];
    expect((await fetch(`${base()}/lists/porch/keys/${id}`, { method: "DELETE", headers: AS_WRITER })).status).toBe(
      204,
    );
    await page.getByText(LINK_ENDED, { exact: true }).waitFor({ timeout: 30_000 });
    const refused = page.waitForResponse((res) => res.request().method() === "POST" && res.status() === 401);
    await addWithForm(page, "Sent once the link ended");
    await refused;
    await page.getByText(LINK_ENDED, { exact: true }).waitFor({ timeout: 30_000 });
    expect(await serverTasks(`${base()}/lists/porch/tasks`, READ_TOKEN)).toEqual([]);
  });

  test("a revoked link opened later is told so, not asked for a token as if nothing happened", async () => {
    await createList(base(), "attic");
    const key = await makeKey(base(), "attic", "read");
    const listed = await fetch(`${base()}/lists/attic/keys`, { headers: AS_WRITER });
    const [{ id }] = (await listed.json()) as [{ id: string }];
    expect((await fetch(`${base()}/lists/attic/keys/${id}`, { method: "DELETE", headers: AS_WRITER })).status).toBe(
      204,
    );
    const page = await openPage(`${base()}/lists/attic/#key=${key}`, { refused: LINK_REFUSALS });
    await page.getByText(LINK_ENDED, { exact: true }).waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(`${base()}/lists/attic/`);
  });
});
