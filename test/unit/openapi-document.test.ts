import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, test } from "vitest";
import { appFrom } from "./helpers.ts";

interface Document {
  servers: unknown;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}

const documentOf = async (res: Response) => (await res.json()) as Document;

describe.each([
  { env: {}, path: "/openapi.json", server: "/" },
  { env: { BASE_PATH: "/api" }, path: "/api/openapi.json", server: "/api" },
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
    expect(Object.keys(document.paths)).toEqual(["/tasks", "/index.php", "/openapi.json", "/"]);
  });

  test("answers 304 to a client that holds its ETag, and HEAD without a body", async () => {
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
    expect(head.headers.get("Content-Length")).toBe(first.headers.get("Content-Length"));
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
  const document = await documentOf(await appFrom({ MAX_BODY_BYTES: "2048", MAX_TASKS: "7" }).request("/openapi.json"));
  const text = JSON.stringify(document);
  expect(text).toContain("Request body must be at most 2048 bytes");
  expect(text).toContain("it holds the maximum of 7 tasks");
});

test("the document describes OPTIONS as a CORS preflight only when CORS is on", async () => {
  const off = await documentOf(await appFrom({}).request("/openapi.json"));
  const on = await documentOf(await appFrom({ CORS_ORIGINS: "*" }).request("/openapi.json"));
  expect(Object.keys(off.paths["/tasks"]?.options?.responses ?? {})).toEqual(["405"]);
  expect(Object.keys(on.paths["/tasks"]?.options?.responses ?? {})).toEqual(["204"]);
});
