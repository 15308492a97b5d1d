// A list's life on lists in memory (list-lifecycle-rules.ts), and what holds for every list alike:
// tokens, CORS and the log.
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryLists } from "../../src/store/memory-lists.ts";
import { listsApp, sendJson } from "./list-helpers.ts";
import { describeListLifecycle } from "./list-lifecycle-rules.ts";

describeListLifecycle("lists in memory", async (env = {}, upgradeWebSocket) =>
  createApp({
    lists: new MemoryLists(),
    config: parseAppConfig({ LOG_LEVEL: "off", ...env }),
    ...(upgradeWebSocket === undefined ? {} : { upgradeWebSocket }),
  }),
);

test("tokens hold for every list: reading /lists and a list is a read, creating, retitling and deleting are writes", async () => {
  const read = "read-token-0123456789";
  const write = "write-token-0123456789";
  const app = listsApp({ READ_TOKENS: read, WRITE_TOKENS: write });
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  expect((await app.request("/lists")).status).toBe(401);
  expect((await app.request("/lists", { headers: bearer(read) })).status).toBe(200);
  expect((await sendJson(app, "PUT", "/lists/guarded", { title: "x" }, bearer(read))).status).toBe(403);
  expect((await sendJson(app, "POST", "/lists", { title: "x" }, bearer(read))).status).toBe(403);
  expect((await sendJson(app, "PUT", "/lists/guarded", { title: "x" }, bearer(write))).status).toBe(201);
  expect((await app.request("/lists/guarded/tasks")).status).toBe(401);
  expect((await app.request("/lists/guarded/tasks", { headers: bearer(read) })).status).toBe(200);
  expect((await app.request("/lists/guarded", { method: "DELETE", headers: bearer(read) })).status).toBe(403);
  expect((await app.request("/lists/guarded", { method: "DELETE", headers: bearer(write) })).status).toBe(204);
});

test("CORS preflights of /lists and /lists/{name} allow the methods each serves", async () => {
  const app = listsApp({ CORS_ORIGINS: "*" });
  const preflight = (path: string) =>
    app.request(path, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "PUT" },
    });
  const lists = await preflight("/lists");
  expect(lists.status).toBe(204);
  expect(lists.headers.get("Access-Control-Allow-Methods")).toBe("GET,HEAD,POST");
  expect((await preflight("/lists/some")).headers.get("Access-Control-Allow-Methods")).toBe(
    "GET,HEAD,PUT,PATCH,DELETE",
  );
  expect((await preflight("/lists/some/tasks")).headers.get("Access-Control-Allow-Methods")).toBe("GET,HEAD,POST");
});

test("each log line of a request to a list names the list", async () => {
  const lines: string[] = [];
  const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const app = createApp({ lists: new MemoryLists(), config: parseAppConfig({}), logSink: sink });
  await sendJson(app, "PUT", "/lists/logged", { title: "Logged" });
  await app.request("/lists/logged/tasks");
  await app.request("/tasks");
  await app.request("/lists");
  const entries = lines.map((line) => JSON.parse(line) as { path: string; list?: string });
  expect(entries.map((entry) => [entry.path, entry.list])).toEqual([
    ["/lists/logged", "logged"],
    ["/lists/logged/tasks", "logged"],
    ["/tasks", "default"],
    ["/lists", undefined],
  ]);
});
