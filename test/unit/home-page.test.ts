import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { appFrom, expectJsonError } from "./helpers.ts";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("base64");

/** The directives of a Content-Security-Policy header, by name. */
function directivesOf(policy: string | null): Map<string, string[]> {
  expect(policy).not.toBeNull();
  return new Map(
    (policy ?? "").split(";").map((directive) => {
      const [name = "", ...sources] = directive.trim().split(/\s+/);
      return [name, sources];
    }),
  );
}

/** The text of each inline element `tag` in an HTML page, whatever its attributes. */
function inline(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "g"))].map(
    (match) => match[1] ?? "",
  );
}

describe.each([
  { env: {}, path: "/" },
  { env: { BASE_PATH: "/api" }, path: "/api/" },
  { env: { BASE_PATH: "/api/v1" }, path: "/api/v1/" },
])("GET $path", ({ env, path }) => {
  test("returns 200 with an HTML page that shows the list, a form to add a task and a link to the OpenAPI document", async () => {
    const res = await appFrom(env).request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<label for="title" class="visually-hidden">New task</label>');
    expect(html).toContain('placeholder="What needs to be done?"');
    expect(html).toContain('<input id="toggle-all" type="checkbox" aria-label="Mark all as complete"');
    expect(html).toContain('<a id="openapi-link" href="openapi.json">');
  });

  test("gives each task a checkbox, an Edit and a Delete button named after its title's start, writing with If-Match", async () => {
    const html = await (await appFrom(env).request(path)).text();
    expect(html).toContain('<a href="#/active">Active</a>');
    expect(html).toContain("const short = shortTitle(row.task.title);");
    expect(html).toContain('row.box.setAttribute("aria-label", name);');
    expect(html).toContain("`Edit $" + "{name}`");
    expect(html).toContain("`Delete $" + "{name}`");
    expect(html).toContain("`New title for $" + "{name}`");
    expect(html).toContain(" of the title of task $" + "{row.task.id}`");
    expect(html).toContain('"If-Match": etag');
    expect(html).toContain('"Content-Type": "application/merge-patch+json"');
    expect(html).toContain("This task was changed elsewhere: it now reads");
    expect(html).toContain('if (kind === "reset")');
  });

  test("names no path of its own, so that it works under any base path, from its own address", async () => {
    const html = await (await appFrom(env).request(path)).text();
    expect(html).not.toMatch(/(?:href|src|action)="(?:\/|[a-z]+:)/i);
    expect(html).toContain('const base = location.pathname.endsWith("/") ? location.pathname : `');
    expect(html).toContain("send(tasksUrl, {");
    expect(html).not.toContain(env.BASE_PATH ?? "/api");
  });

  test("is allowed by its Content-Security-Policy to run its own inline script and style only, by hash", async () => {
    const res = await appFrom(env).request(path);
    const html = await res.text();
    const policy = directivesOf(res.headers.get("Content-Security-Policy"));
    const scripts = inline(html, "script");
    const styles = inline(html, "style");
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(policy.get("default-src")).toEqual(["'none'"]);
    expect(policy.get("script-src")).toEqual(scripts.map((script) => `'sha256-${sha256(script)}'`));
    expect(policy.get("style-src")).toEqual(styles.map((style) => `'sha256-${sha256(style)}'`));
    expect(policy.get("connect-src")).toEqual(["'self'"]);
    expect(policy.get("form-action")).toEqual(["'none'"]);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("require-trusted-types-for")).toEqual(["'script'"]);
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*stylesheet|\sstyle="|\son[a-z]+="/i);
  });

  test("answers HEAD with the headers of GET and no body", async () => {
    const app = appFrom(env);
    const get = await app.request(path);
    const head = await app.request(path, { method: "HEAD" });
    expect(head.status).toBe(200);
    for (const name of ["Content-Type", "ETag", "Content-Security-Policy", "Cache-Control"]) {
      expect(head.headers.get(name), name).toBe(get.headers.get(name));
    }
    expect(Number(head.headers.get("Content-Length"))).toBe((await get.arrayBuffer()).byteLength);
    expect(await head.text()).toBe("");
  });

  test.each(["GET", "HEAD"])("answers %s with 304 and no body to a client that holds its ETag", async (method) => {
    const app = appFrom(env);
    const first = await app.request(path);
    const etag = first.headers.get("ETag");
    expect(etag).toMatch(/^"[^"]+"$/);
    for (const header of [etag, `W/${etag}`, `"stale", ${etag}`, "*"]) {
      const again = await app.request(path, { method, headers: { "If-None-Match": `${header}` } });
      expect(again.status, header ?? "").toBe(304);
      expect(again.headers.get("ETag")).toBe(etag);
      expect(again.headers.get("Content-Security-Policy")).toBe(first.headers.get("Content-Security-Policy"));
      expect(await again.text()).toBe("");
    }
  });

  test("returns 200 to a client whose ETag is stale", async () => {
    const res = await appFrom(env).request(path, { headers: { "If-None-Match": '"an-older-page"' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^<!doctype html>/);
  });

  test("ignores a query string", async () => {
    const res = await appFrom(env).request(`${path}?title=<b>x</b>`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
  });

  test.each(["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])(
    "answers %s with 405, Allow: GET, HEAD and no body",
    async (method) => {
      const res = await appFrom(env).request(path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET, HEAD");
      expect(await res.text()).toBe("");
    },
  );
});

test("with CORS on, OPTIONS of the page still returns 405: the page is not for other origins' scripts", async () => {
  const res = await appFrom({ CORS_ORIGINS: "*" }).request("/", {
    method: "OPTIONS",
    headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "GET" },
  });
  expect(res.status).toBe(405);
  expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
});

test("the page is the same under every base path, so one ETag serves them all", async () => {
  const root = await appFrom({}).request("/");
  const nested = await appFrom({ BASE_PATH: "/api/v1" }).request("/api/v1/");
  expect(nested.headers.get("ETag")).toBe(root.headers.get("ETag"));
  expect(await nested.text()).toBe(await root.text());
});

describe.each(["/api", "/api/v1"])("under BASE_PATH %s", (base) => {
  const app = () => appFrom({ BASE_PATH: base });

  test.each(["GET", "HEAD"])("%s of the base path, with or without its slash, answers the page", async (method) => {
    const withSlash = await app().request(`${base}/`, { method });
    const without = await app().request(base, { method });
    for (const res of [withSlash, without]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    }
    expect(without.headers.get("ETag")).toBe(withSlash.headers.get("ETag"));
    expect(await without.text()).toBe(await withSlash.text());
  });

  test("other methods on the base path without its slash return 405 with Allow: GET, HEAD", async () => {
    const res = await app().request(base, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, HEAD");
  });

  test.each(["/", `${base}//`, `${base}/index.html`])("%s returns 404", async (path) => {
    await expectJsonError(await app().request(path), 404, "Not found");
  });
});

test("without a base path, only / serves the page", async () => {
  const app = appFrom({});
  for (const path of ["//", "/index.html", "/home"]) {
    await expectJsonError(await app.request(path), 404, "Not found");
  }
});

describe.each([
  { env: {}, path: "/service-worker.js", allowed: "/" },
  { env: { BASE_PATH: "/api/v1" }, path: "/api/v1/service-worker.js", allowed: "/api/v1" },
])("GET $path", ({ env, path, allowed }) => {
  test("serves the page's service worker as a script, with its ETag, a policy of its own and the base path as its widest scope", async () => {
    const app = appFrom(env);
    const res = await app.request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    expect(res.headers.get("Service-Worker-Allowed")).toBe(allowed);
    expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'; connect-src 'self'");
    const script = await res.text();
    expect(script).toContain('addEventListener("fetch"');
    expect(script).toContain('event.request.mode === "navigate"');
    const etag = res.headers.get("ETag") ?? "";
    expect(etag).toBe(`"${sha256(script)}"`);
    expect((await app.request(path, { headers: { "If-None-Match": etag } })).status).toBe(304);
    expect((await app.request(path, { method: "POST" })).status).toBe(405);
  });

  test("the page's policy lets it register that worker, through its one Trusted Types policy", async () => {
    const res = await appFrom(env).request(path.replace("service-worker.js", ""));
    const policy = directivesOf(res.headers.get("Content-Security-Policy"));
    expect(policy.get("worker-src")).toEqual(["'self'"]);
    expect(policy.get("trusted-types")).toEqual(["service-worker"]);
  });
});
