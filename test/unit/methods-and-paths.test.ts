import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import { appFrom, ENTRY_POINTS, expectJsonError, snapshot } from "./helpers.ts";

/** Methods named like members of Object.prototype: valid HTTP tokens, which Deno's server passes on. */
const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"];
const OTHER_METHODS = ["PUT", "PATCH", "DELETE", "OPTIONS", "PURGE", "QUERY", ...PROTOTYPE_NAMES];

describe.each(ENTRY_POINTS)("methods other than GET, HEAD and POST on $path", ({ env, path }) => {
  test.each(OTHER_METHODS)("%s returns 405 with an empty body, Allow and no Content-Type", async (method) => {
    const app = appFrom(env);
    const res = await app.request(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, HEAD, POST");
    expect(res.headers.get("Content-Type")).toBeNull();
    expect(await res.text()).toBe("");
  });

  test.each(OTHER_METHODS)("%s with a task body adds nothing", async (method) => {
    const app = appFrom(env);
    const before = await snapshot(app, path);
    const res = await app.request(path, {
      method,
      body: JSON.stringify({ title: "Sneaked in", completed: true }),
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(405);
    expect(await snapshot(app, path)).toEqual(before);
  });
});

test.each(PROTOTYPE_NAMES)(
  "%s is a method no path serves: 405 with each path's Allow, 404 elsewhere, and logged as sent",
  async (method) => {
    const lines: string[] = [];
    const logSink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const app = createApp({ store: new MemoryStore(), config: parseAppConfig({}), logSink });
    const allows = {
      "/tasks/1": "GET, HEAD, PUT, PATCH, DELETE",
      "/tasks/events": "GET, HEAD",
      "/openapi.json": "GET, HEAD",
      "/": "GET, HEAD",
    };
    for (const [path, allow] of Object.entries(allows)) {
      const res = await app.request(path, { method });
      expect([res.status, res.headers.get("Allow"), await res.text()]).toEqual([405, allow, ""]);
    }
    await expectJsonError(await app.request("/nowhere", { method }), 404, "Not found");
    expect(lines.map((line) => JSON.parse(line) as { method: string; status: number })).toEqual(
      [...Object.keys(allows), "/nowhere"].map((path) =>
        expect.objectContaining({ method, path, status: path === "/nowhere" ? 404 : 405 }),
      ),
    );
  },
);

describe.each([
  { env: {}, base: "" },
  { env: { BASE_PATH: "/api" }, base: "/api" },
])("paths that do not exist, with base path '$base'", ({ env, base }) => {
  const missing = [
    "/tasks/",
    "/index.php/",
    "/tasks/007",
    "/tasks/0",
    "/tasks/abc",
    "/tasks/1234567890123456",
    "/tasks/1/",
    "/index.php/1",
    "/index.php/tasks",
    "/task",
    "/Tasks",
    "/INDEX.PHP",
    "/tasks.json",
    "/index.html",
    "/openapi",
  ].map((path) => `${base}${path}`);

  test.each(missing)("GET %s returns 404 with a JSON message", async (path) => {
    const res = await appFrom(env).request(path);
    await expectJsonError(res, 404, "Not found");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  test.each(missing)("POST %s returns 404 and adds nothing", async (path) => {
    const app = appFrom(env);
    const before = await snapshot(app, `${base}/tasks`);
    const res = await app.request(path, {
      method: "POST",
      body: JSON.stringify({ title: "Lost", completed: false }),
      headers: { "Content-Type": "application/json" },
    });
    await expectJsonError(res, 404, "Not found");
    expect(await snapshot(app, `${base}/tasks`)).toEqual(before);
  });

  test.each(missing)("DELETE %s returns 404, not 405", async (path) => {
    await expectJsonError(await appFrom(env).request(path, { method: "DELETE" }), 404, "Not found");
  });
});

describe("BASE_PATH", () => {
  test.each([
    { base: "/api", elsewhere: ["/tasks", "/index.php", "/apitasks", "/api/api/tasks"] },
    { base: "/api/v1", elsewhere: ["/tasks", "/api/tasks", "/v1/tasks"] },
    { base: "/svc_2.0~x/.well-known", elsewhere: ["/tasks", "/svc_2.0~x/tasks", "/.well-known/tasks"] },
  ])("under $base the list is served only under the base path", async ({ base, elsewhere }) => {
    const app = appFrom({ BASE_PATH: base });
    for (const path of ["/tasks", "/index.php"]) {
      const res = await app.request(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveLength(2);
    }
    for (const path of elsewhere) {
      await expectJsonError(await app.request(path), 404, "Not found");
      await expectJsonError(await app.request(path, { method: "DELETE" }), 404, "Not found");
    }
  });

  test.each([{ BASE_PATH: "/" }, { BASE_PATH: "" }, {}])("%j serves the list at /tasks", async (env) => {
    const res = await appFrom(env).request("/tasks");
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveLength(2);
  });
});
