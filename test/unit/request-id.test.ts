import { describe, expect, test } from "vitest";
import { appFrom } from "./helpers.ts";

/** A generated id: the isolate's or process's random prefix, then a counter in base 36. */
const GENERATED = /^[0-9a-f]{16}-[0-9a-z]+$/;

const CASES = [
  { name: "a list read", path: "/tasks", init: {} },
  { name: "a 404", path: "/nowhere", init: {} },
  { name: "a 405", path: "/tasks", init: { method: "DELETE" } },
  {
    name: "a 400",
    path: "/tasks",
    init: { method: "POST", body: "{", headers: { "Content-Type": "application/json" } },
  },
];

describe.each(CASES)("X-Request-Id on $name", ({ path, init }) => {
  test("is generated when the request has none, and differs between requests and between processes", async () => {
    const app = appFrom();
    const first = (await app.request(path, init)).headers.get("X-Request-Id");
    const second = (await app.request(path, init)).headers.get("X-Request-Id");
    expect(first).toMatch(GENERATED);
    expect(second).toMatch(GENERATED);
    expect(first).not.toBe(second);
    const elsewhere = (await appFrom().request(path, init)).headers.get("X-Request-Id");
    expect(elsewhere?.split("-")[0]).not.toBe(first?.split("-")[0]);
  });

  test("keeps a valid incoming id", async () => {
    const res = await appFrom().request(path, {
      ...init,
      headers: { ...init.headers, "X-Request-Id": "trace-42_abc=" },
    });
    expect(res.headers.get("X-Request-Id")).toBe("trace-42_abc=");
  });

  test.each(["has spaces", "<script>", "x".repeat(256)])("replaces the invalid incoming id %j", async (id) => {
    const res = await appFrom().request(path, { ...init, headers: { ...init.headers, "X-Request-Id": id } });
    expect(res.headers.get("X-Request-Id")).toMatch(GENERATED);
  });
});

test("a 404 outside the base path also gets a request id and nosniff", async () => {
  const res = await appFrom({ BASE_PATH: "/api" }).request("/tasks");
  expect(res.status).toBe(404);
  expect(res.headers.get("X-Request-Id")).toMatch(GENERATED);
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
});
