import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, test } from "vitest";
import { appFrom } from "./helpers.ts";

interface Document {
  servers: unknown;
  paths: Record<
    string,
    Record<string, { operationId?: string; responses: Record<string, unknown>; security?: unknown }>
  >;
  components?: Record<string, Record<string, { schema?: unknown }>>;
}

const documentOf = async (res: Response) => (await res.json()) as Document;

describe.each([
  { env: {}, path: "/openapi.json", server: "/" },
  { env: { BASE_PATH: "/api" }, path: "/api/openapi.json", server: "/api" },
  {
    env: { BASE_PATH: "/api", READ_TOKENS: "read-token-0123456789", WRITE_TOKENS: "write-token-0123456789" },
    path: "/api/openapi.json",
    server: "/api",
  },
])("GET $path", ({ env, path, server }) => {
  test("serves a valid OpenAPI 3.1 document whose server is the base path", async () => {
    const res = await appFrom(env).request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const document = await documentOf(res);
    const validator = new Validator();
    expect(await validator.validate({ ...document })).toEqual({ valid: true });
    expect(validator.version).toBe("3.1");
    expect(document.servers).toEqual([{ url: server }]);
    expect(Object.keys(document.paths)).toEqual([
      "/tasks",
      "/index.php",
      "/tasks/events",
      "/tasks/{id}",
      "/lists",
      "/lists/default",
      "/lists/{name}",
      "/lists/{name}/keys",
      "/lists/{name}/keys/{id}",
      "/lists/{name}/tasks",
      "/lists/{name}/tasks/events",
      "/lists/{name}/tasks/{id}",
      "/openapi.json",
      "/",
      "/service-worker.js",
    ]);
  });

  test("returns 304 to a client that holds its ETag, and HEAD without a body", async () => {
    const app = appFrom(env);
    const first = await app.request(path);
    const etag = first.headers.get("ETag");
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await app.request(path, { headers: { "If-None-Match": `${etag}` } });
    expect(again.status).toBe(304);
    expect(again.headers.get("ETag")).toBe(etag);
    expect(await again.text()).toBe("");
    const head = await app.request(path, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("Content-Length"))).toBe((await first.arrayBuffer()).byteLength);
    expect(await head.text()).toBe("");
  });

  test.each(["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])(
    "answers %s with 405 and Allow: GET, HEAD",
    async (method) => {
      const res = await appFrom(env).request(path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET, HEAD");
      expect(await res.text()).toBe("");
    },
  );
});

test("the document states the configured limits in its descriptions and examples", async () => {
  const env = { MAX_BODY_BYTES: "2048", MAX_TASKS: "7", MAX_LIST_BYTES: "65536" };
  const document = await documentOf(await appFrom(env).request("/openapi.json"));
  const text = JSON.stringify(document);
  expect(text).toContain("Request body must be at most 2048 bytes");
  expect(text).toContain("it holds the maximum of 7 tasks");
  expect(text).toContain("this task would take the list past its limit of 65536 bytes");
});

test("without tokens every operation says it needs no security; with them, the bearer scheme and 401/403 where they apply", async () => {
  const open = await documentOf(await appFrom({ CORS_ORIGINS: "*" }).request("/openapi.json"));
  expect(JSON.stringify(open)).not.toMatch(/"securitySchemes"|bearer|"401"|"403"/i);
  for (const [path, item] of Object.entries(open.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation === "object" && "responses" in operation) {
        expect(operation.security, `${method} ${path}`).toEqual([]);
      }
    }
  }

  const writeOnly = await documentOf(
    await appFrom({ WRITE_TOKENS: "write-token-0123456789" }).request("/openapi.json"),
  );
  // Both uses of the bearer scheme: a deployment's token, and a key of the list the path names.
  expect(writeOnly.components?.securitySchemes).toEqual({
    bearerToken: expect.objectContaining({ type: "http", scheme: "bearer" }),
    listKey: expect.objectContaining({ type: "http", scheme: "bearer" }),
  });
  expect(writeOnly.paths["/tasks"]?.post?.security).toEqual([{ bearerToken: [] }, { listKey: [] }]);
  expect(Object.keys(writeOnly.paths["/tasks"]?.post?.responses ?? {})).toContain("401");
  // A read key on a write is refused, though no read token is.
  expect(writeOnly.paths["/tasks"]?.post?.responses?.["403"]).toEqual({ $ref: "#/components/responses/ReadOnly" });
  expect(writeOnly.paths["/tasks"]?.get?.security).toEqual([]);
  expect(writeOnly.paths["/lists"]?.post?.security).toEqual([{ bearerToken: [] }]);
  expect(writeOnly.paths["/lists/{name}/keys"]?.get?.security).toEqual([{ bearerToken: [] }]);
  expect(writeOnly.paths["/lists/{name}/keys"]?.post?.responses?.["403"]).toEqual({
    $ref: "#/components/responses/KeyNotForList",
  });

  const both = await documentOf(
    await appFrom({ READ_TOKENS: "read-token-0123456789", WRITE_TOKENS: "write-token-0123456789" }).request(
      "/openapi.json",
    ),
  );
  for (const method of ["get", "head", "post"] as const) {
    expect(both.paths["/index.php"]?.[method]?.security).toEqual([{ bearerToken: [] }, { listKey: [] }]);
    expect(Object.keys(both.paths["/index.php"]?.[method]?.responses ?? {})).toContain("401");
  }
  expect(Object.keys(both.paths["/tasks"]?.post?.responses ?? {})).toContain("403");
  expect(both.paths["/openapi.json"]?.get?.security).toEqual([]);
  expect(JSON.stringify(both)).not.toContain("token-0123456789");
});

test("the document describes OPTIONS as a CORS preflight only when CORS is on, with 404 where a path parameter is out of pattern", async () => {
  const off = await documentOf(await appFrom({}).request("/openapi.json"));
  const app = appFrom({ CORS_ORIGINS: "*" });
  const on = await documentOf(await app.request("/openapi.json"));
  expect(off.paths["/tasks"]?.options).toBeUndefined();
  expect(Object.keys(on.paths["/tasks"]?.options?.responses ?? {})).toEqual(["204", "4XX"]);
  expect(Object.keys(on.paths["/tasks/{id}"]?.options?.responses ?? {})).toEqual(["204", "404"]);
  const preflight = { "Access-Control-Request-Method": "PATCH", Origin: "https://app.example" };
  expect((await app.request("/tasks/1", { method: "OPTIONS", headers: preflight })).status).toBe(204);
  expect((await app.request("/tasks/abc", { method: "OPTIONS", headers: preflight })).status).toBe(404);
});

describe.each([
  { env: {}, base: "" },
  { env: { BASE_PATH: "/api", CORS_ORIGINS: "*" }, base: "/api" },
])("with $env", ({ env, base }) => {
  test("each path answers a method the document does not list with 405 and Allow naming those it lists", async () => {
    const app = appFrom(env);
    const document = await documentOf(await app.request(`${base}/openapi.json`));
    for (const [path, item] of Object.entries(document.paths)) {
      const listed = ["get", "head", "post", "put", "patch", "delete"].filter((method) => method in item);
      for (const method of ["PUT", "DELETE", "PATCH", "PURGE", "POST"].filter(
        (m) => !listed.includes(m.toLowerCase()),
      )) {
        // Task 1 stands for every task, a key's id for every key, and a list never created for every
        // list: a method is refused before the list is looked at.
        const id = path.includes("/keys/") ? "abcdefghijklmnop" : "1";
        const res = await app.request(`${base}${path.replace("{id}", id).replace("{name}", "other")}`, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get("Allow"), `${method} ${path}`).toBe(listed.join(", ").toUpperCase());
      }
    }
  });
});

test("every operation id is unique, and every component is used", async () => {
  const env = { READ_TOKENS: "read-token-0123456789", WRITE_TOKENS: "write-token-0123456789", CORS_ORIGINS: "*" };
  for (const document of [
    await documentOf(await appFrom({}).request("/openapi.json")),
    await documentOf(await appFrom(env).request("/openapi.json")),
  ]) {
    const ids = Object.values(document.paths)
      .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
      .filter((id) => id !== undefined);
    expect(ids).toHaveLength(new Set(ids).size);
    const text = JSON.stringify(document);
    for (const [kind, entries] of Object.entries(document.components ?? {})) {
      for (const name of Object.keys(entries)) {
        const use = kind === "securitySchemes" ? `{"${name}":[]}` : `"#/components/${kind}/${name}"`;
        expect(text, `${kind}/${name}`).toContain(use);
      }
    }
  }
});

test("the cursor `after` is an integer of at most 15 digits", async () => {
  const document = await documentOf(await appFrom({}).request("/openapi.json"));
  expect(document.components?.parameters?.After?.schema).toEqual({
    type: "integer",
    minimum: 0,
    maximum: 999_999_999_999_999,
  });
});
