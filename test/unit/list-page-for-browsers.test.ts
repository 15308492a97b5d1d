// A browser at a list's path is sent to the list's page, and a browser at the page of a list that
// does not exist gets a small HTML page with a link home; API clients get JSON as before.
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { LIST_DELETED } from "../../src/messages.ts";
import { expectJsonError } from "./helpers.ts";
import { listsApp, newLists } from "./list-helpers.ts";
import { createList, sendJson } from "./list-requests.ts";

/** What Chromium sends when a person opens a URL. */
const BROWSER = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8" };
const TOKENS = { READ_TOKENS: "read-token-0123456789", WRITE_TOKENS: "write-token-0123456789" };

test("a browser at /lists/{name} is sent to /lists/{name}/, under the base path, whatever the list and the token", async () => {
  const app = listsApp({ BASE_PATH: "/api", ...TOKENS });
  for (const name of ["default", "never-made"]) {
    for (const method of ["GET", "HEAD"]) {
      const res = await app.request(`/api/lists/${name}`, { method, headers: BROWSER });
      expect([res.status, res.headers.get("Location"), res.headers.get("Vary")]).toEqual([
        302,
        `/api/lists/${name}/`,
        "Accept",
      ]);
      expect(await res.text()).toBe("");
    }
  }
});

test("an API client at /lists/{name} still gets the list as JSON, or its 401, whatever its Accept", async () => {
  const app = listsApp();
  await createList(app, "groceries", "Groceries");
  for (const accept of [undefined, "*/*", "application/json", "application/json, text/html;q=0.5", "text/html;q=0"]) {
    const res = await app.request("/lists/groceries", { headers: accept === undefined ? {} : { Accept: accept } });
    expect([res.status, await res.text()], `Accept: ${accept}`).toEqual([
      200,
      '{"name":"groceries","title":"Groceries"}',
    ]);
  }
  const guarded = listsApp(TOKENS);
  expect((await guarded.request("/lists/default", { headers: { Accept: "application/json" } })).status).toBe(401);
});

test("a browser at the page of a list never created, or deleted, gets a small HTML page with a link home", async () => {
  const app = listsApp();
  await createList(app, "gone-soon");
  expect((await app.request("/lists/gone-soon", { method: "DELETE" })).status).toBe(204);
  for (const [name, status, heading] of [
    ["never-made", 404, "No list here"],
    ["gone-soon", 410, "This list was deleted"],
  ] as const) {
    const res = await app.request(`/lists/${name}/`, { headers: BROWSER });
    expect(res.status).toBe(status);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("Content-Security-Policy")).toMatch(/^default-src 'none'/);
    const html = await res.text();
    expect(html).toContain(`<h1>${heading}</h1>`);
    // From /lists/{name}/, two steps up is the base path (here none): the home page and its lists.
    expect(html).toContain('<a href="../../">Go to your lists</a>');
    const head = await app.request(`/lists/${name}/`, { method: "HEAD", headers: BROWSER });
    expect([head.status, await head.text()]).toEqual([status, ""]);
  }
  await expectJsonError(await app.request("/lists/gone-soon/"), 410, LIST_DELETED);
  expect((await app.request("/lists/never-made/")).status).toBe(404);
  expect((await app.request("/lists/gone-soon/", { headers: { Accept: "application/json" } })).status).toBe(410);
});

test("with tokens set, a list's page answers the same whether the list lives, was deleted or never was, and reads no list", async () => {
  const write = { Authorization: `Bearer ${TOKENS.WRITE_TOKENS}` };
  for (const tokens of [TOKENS, { WRITE_TOKENS: TOKENS.WRITE_TOKENS }]) {
    const lists = newLists("memory");
    const app = createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off", ...tokens }) });
    for (const name of ["lives", "deleted"]) {
      expect((await sendJson(app, "PUT", `/lists/${name}`, { title: name }, write)).status).toBe(201);
    }
    expect((await app.request("/lists/deleted", { method: "DELETE", headers: write })).status).toBe(204);
    const answers = new Set<string>();
    for (const name of ["lives", "deleted", "never-made"]) {
      for (const headers of [BROWSER, {}, { Accept: "application/json" }]) {
        for (const method of ["GET", "HEAD"]) {
          const res = await app.request(`/lists/${name}/`, { method, headers });
          const seen = [...res.headers].filter(([header]) => header !== "x-request-id");
          answers.add(JSON.stringify([method, headers, res.status, seen, await res.text()]));
        }
      }
    }
    // One answer per method and Accept, whatever the name.
    expect(answers.size, [...answers].map((answer) => answer.slice(0, 120)).join("\n")).toBe(6);
    expect([...answers].every((answer) => answer.includes(",200,"))).toBe(true);
  }
});
