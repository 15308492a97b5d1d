import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/store/memory.ts";
import { addWithForm, expectShown, serverTasks, useBrowser } from "./browser.ts";
import { useInProcessServer } from "./in-process.ts";

// The service does not check tokens yet (CONTRACT.md "Access" is being built beside this page), so
// these tests put the app behind a stand-in that answers as the contract says: 401 with
// WWW-Authenticate until a known bearer token is sent, 403 for a read token on a POST. Once the
// service has READ_TOKENS and WRITE_TOKENS, the same flow runs against its real servers.

const READ_TOKEN = "read-token-0123456789abcdef";
const WRITE_TOKEN = "write-token-0123456789abcdef";
const NO_TOKEN = "Send a bearer token in the Authorization header";
const UNKNOWN_TOKEN = "The bearer token is not valid: send a token the service knows";
const READ_ONLY = "This token may read the list but not add to it";
const INITIAL = [
  { id: 1, title: "Read the task list specification", completed: true },
  { id: 2, title: "Build the task list service", completed: false },
];

function refusal(status: 401 | 403, message: string, tokenSent: boolean): Response {
  const challenge = `Bearer realm="tasks"${tokenSent ? ', error="invalid_token"' : ""}`;
  return new Response(JSON.stringify({ message }), {
    status,
    headers: { "Content-Type": "application/json", ...(status === 401 ? { "WWW-Authenticate": challenge } : {}) },
  });
}

/** The app behind bearer tokens; reading needs one only when `readNeedsToken`. */
function guardedApp(readNeedsToken: boolean): (request: Request) => Response | Promise<Response> {
  const app = createApp({ store: new MemoryStore(), config: parseAppConfig({ LOG_LEVEL: "off" }) });
  return (request) => {
    if (new URL(request.url).pathname !== "/tasks") return app.fetch(request);
    const writes = request.method === "POST";
    if (!writes && !readNeedsToken) return app.fetch(request);
    const token = /^Bearer (\S+)$/.exec(request.headers.get("Authorization") ?? "")?.[1];
    if (token === WRITE_TOKEN || (token === READ_TOKEN && !writes)) return app.fetch(request);
    if (token === READ_TOKEN) return refusal(403, READ_ONLY, true);
    return refusal(401, token === undefined ? NO_TOKEN : UNKNOWN_TOKEN, token !== undefined);
  };
}

/** Gives the page a token through its token form, as a person would. */
async function enterToken(page: Page, token: string): Promise<void> {
  await page.getByLabel("Token").fill(token);
  await page.getByLabel("Token").press("Enter");
}

/** The Authorization header of every list request the page sends from now on. */
function authorizationsSent(page: Page): Promise<string | null>[] {
  const sent: Promise<string | null>[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/tasks") sent.push(request.headerValue("Authorization"));
  });
  return sent;
}

describe("the home page of a service whose list needs a token", () => {
  const baseUrl = useInProcessServer(guardedApp(true));
  const openPage = useBrowser();

  test("asks for a token when the list answers 401, then reads the list with it as a bearer token", async () => {
    const page = await openPage(`${baseUrl()}/`, { refused: [401] });
    await expect.poll(() => page.getByRole("alert").textContent()).toBe(NO_TOKEN);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("token");
    const sent = authorizationsSent(page);
    await enterToken(page, READ_TOKEN);
    await expectShown(page, INITIAL);
    await page.waitForResponse((res) => res.status() === 304);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(new Set(await Promise.all(sent))).toEqual(new Set([`Bearer ${READ_TOKEN}`]));
  });

  test("sends the token as a bearer token when adding a task", async () => {
    const page = await openPage(`${baseUrl()}/`, { refused: [401] });
    await enterToken(page, WRITE_TOKEN);
    const before = await serverTasks(`${baseUrl()}/tasks`, WRITE_TOKEN);
    await expectShown(page, before);
    const posted = page.waitForRequest((request) => request.method() === "POST");
    await addWithForm(page, "Added with a token", false);
    expect(await (await posted).headerValue("Authorization")).toBe(`Bearer ${WRITE_TOKEN}`);
    await expectShown(page, [
      ...before,
      { id: (before.at(-1)?.id ?? 0) + 1, title: "Added with a token", completed: false },
    ]);
  });

  test("keeps the token for this tab only: a reload keeps it, a new tab asks again", async () => {
    const page = await openPage(`${baseUrl()}/`, { refused: [401] });
    await enterToken(page, READ_TOKEN);
    await expectShown(page, await serverTasks(`${baseUrl()}/tasks`, READ_TOKEN));
    await page.reload();
    await expectShown(page, await serverTasks(`${baseUrl()}/tasks`, READ_TOKEN));
    expect(await page.getByLabel("Token").isVisible()).toBe(false);
    const other = await openPage(`${baseUrl()}/`, { refused: [401] });
    await expect.poll(() => other.getByRole("alert").textContent()).toBe(NO_TOKEN);
  });

  test("asks again, with the service's message, when the token is not one it knows", async () => {
    const page = await openPage(`${baseUrl()}/`, { refused: [401] });
    await enterToken(page, "not-a-known-token-0000");
    await expect.poll(() => page.getByRole("alert").textContent()).toBe(UNKNOWN_TOKEN);
    await enterToken(page, READ_TOKEN);
    await expectShown(page, await serverTasks(`${baseUrl()}/tasks`, READ_TOKEN));
  });

  test("shows the message of a 403 when the token may read but not add", async () => {
    const page = await openPage(`${baseUrl()}/`, { refused: [401, 403] });
    await enterToken(page, READ_TOKEN);
    const before = await serverTasks(`${baseUrl()}/tasks`, READ_TOKEN);
    await expectShown(page, before);
    await addWithForm(page, "Not allowed", false);
    await expect.poll(() => page.getByRole("alert").textContent()).toBe(READ_ONLY);
    expect(await serverTasks(`${baseUrl()}/tasks`, READ_TOKEN)).toEqual(before);
  });
});

describe("the home page of a service where only adding needs a token", () => {
  const baseUrl = useInProcessServer(guardedApp(false));
  const openPage = useBrowser();

  test("asks for a token when adding answers 401, then adds the task with it", async () => {
    const page = await openPage(`${baseUrl()}/`, { refused: [401] });
    const before = await serverTasks(`${baseUrl()}/tasks`);
    await expectShown(page, before);
    await addWithForm(page, "Added once a token was given", true);
    await expect.poll(() => page.getByRole("alert").textContent()).toBe(NO_TOKEN);
    await enterToken(page, WRITE_TOKEN);
    const added = { id: (before.at(-1)?.id ?? 0) + 1, title: "Added once a token was given", completed: true };
    await expectShown(page, [...before, added]);
    expect(await serverTasks(`${baseUrl()}/tasks`)).toEqual([...before, added]);
  });
});
