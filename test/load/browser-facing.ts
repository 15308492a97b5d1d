import { expect, test } from "vitest";
import type { RunningServer } from "../support/server.ts";
import { expectMessageBody, requestHead, send } from "./http.ts";
import { RawConnection } from "./raw-http.ts";

/** The origins a server started with `CORS_ORIGINS` set to {@link corsOrigins} allows. */
export const ALLOWED_ORIGINS = ["https://app.example.com", "http://localhost:5173"];
/** CORS_ORIGINS as a deployment writes it. */
export const corsOrigins = ALLOWED_ORIGINS.join(",");
const REFUSED_ORIGIN = "https://evil.example";
const MARKUP = "<script>alert(1)</script>";
const JSON_TYPE = { "Content-Type": "application/json" };

function preflight(origin: string): RequestInit {
  return {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "content-type",
    },
  };
}

function accessControlHeaders(res: Response): string[] {
  return [...res.headers.keys()].filter((name) => name.startsWith("access-control-"));
}

/** Registers real preflight and cross-origin requests against a server started with CORS_ORIGINS = {@link corsOrigins}. */
export function describeCors(server: () => RunningServer): void {
  test.each(ALLOWED_ORIGINS)(
    "a preflight from the allowed origin %s returns 204 allowing POST with Content-Type",
    async (origin) => {
      const res = await send(server(), "/tasks", preflight(origin));
      expect(res.status).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
      expect(res.headers.get("Access-Control-Allow-Methods")?.split(",")).toEqual(
        expect.arrayContaining(["GET", "HEAD", "POST"]),
      );
      expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("content-type");
      expect(res.headers.get("Vary")).toContain("Origin");
      expect(await res.text()).toBe("");
    },
  );

  test("a preflight from an origin not in CORS_ORIGINS returns 204 without allowing it", async () => {
    const res = await send(server(), "/index.php", preflight(REFUSED_ORIGIN));
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  test("GET and POST from an allowed origin are readable by the page, from another origin they are not", async () => {
    const [origin] = ALLOWED_ORIGINS;
    const allowedGet = await send(server(), "/tasks", { headers: { Origin: origin ?? "" } });
    await allowedGet.body?.cancel();
    expect(allowedGet.status).toBe(200);
    expect(allowedGet.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect(allowedGet.headers.get("Access-Control-Expose-Headers")).toContain("ETag");

    const allowedPost = await send(server(), "/tasks", {
      method: "POST",
      body: JSON.stringify({ title: "From an allowed page", completed: false }),
      headers: { Origin: origin ?? "", "Content-Type": "application/json" },
    });
    expect(allowedPost.status).toBe(200);
    expect(allowedPost.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect((await allowedPost.json()) as unknown).toMatchObject({ title: "From an allowed page" });

    const refusedGet = await send(server(), "/tasks", { headers: { Origin: REFUSED_ORIGIN } });
    await refusedGet.body?.cancel();
    expect(refusedGet.status).toBe(200);
    expect(refusedGet.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
}

/** Registers the check that, with CORS_ORIGINS unset, a real preflight gets 405 and no CORS headers. */
export function describeCorsOff(server: () => RunningServer): void {
  test("with CORS_ORIGINS unset, a preflight returns 405 with Allow and no Access-Control-* headers", async () => {
    const [origin = ""] = ALLOWED_ORIGINS;
    const res = await send(server(), "/tasks", preflight(origin));
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, HEAD, POST");
    expect(accessControlHeaders(res)).toEqual([]);
    expect(await res.text()).toBe("");
  });
}

/**
 * Registers the checks that every response carries `X-Content-Type-Options: nosniff` and that
 * request input containing markup comes back, if at all, only inside JSON strings.
 */
export function describeNoEcho(server: () => RunningServer): void {
  const requests: readonly { name: string; path: string; init: RequestInit; status: number }[] = [
    { name: "GET of a path holding markup", path: `/${MARKUP}`, init: {}, status: 404 },
    { name: "DELETE of a path holding markup", path: `/${MARKUP}`, init: { method: "DELETE" }, status: 404 },
    { name: "GET with markup in the query", path: `/tasks?q=${MARKUP}`, init: {}, status: 200 },
    { name: "DELETE of the list", path: "/tasks", init: { method: "DELETE" }, status: 405 },
    {
      name: "POST of markup as the body",
      path: "/tasks",
      init: { method: "POST", body: MARKUP, headers: JSON_TYPE },
      status: 400,
    },
    {
      name: "POST of markup as HTML",
      path: "/tasks",
      init: { method: "POST", body: MARKUP, headers: { "Content-Type": "text/html" } },
      status: 415,
    },
    {
      name: "POST of markup as the completed field",
      path: "/tasks",
      init: { method: "POST", body: JSON.stringify({ title: "x", completed: MARKUP }), headers: JSON_TYPE },
      status: 400,
    },
    {
      name: "POST of markup as the title",
      path: "/tasks",
      init: { method: "POST", body: JSON.stringify({ title: MARKUP, completed: false }), headers: JSON_TYPE },
      status: 200,
    },
  ];

  test.each(requests)(
    "$name answers $status with nosniff, and markup only inside JSON strings",
    async ({ path, init, status }) => {
      const res = await send(server(), path, init);
      const body = await res.text();
      expect(res.status).toBe(status);
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      for (const [name, value] of res.headers) expect(value, name).not.toContain("<");
      if (body !== "") {
        expect(res.headers.get("Content-Type")).toBe("application/json");
        JSON.parse(body);
      }
      if (status >= 400 && status !== 405) {
        expectMessageBody(body);
        expect(body).not.toContain("<");
      }
    },
  );

  test.each([
    { name: "a request target", head: `GET /${MARKUP} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` },
    { name: "a header name", head: `GET /tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-${MARKUP}: 1\r\n\r\n` },
    { name: "a header value", head: requestHead("GET", "/nowhere", { "X-Request-Id": MARKUP }) },
  ])("raw markup in $name is refused or answered without being echoed", async ({ head }) => {
    const connection = new RawConnection(server().baseUrl);
    await connection.connected;
    await connection.write(head);
    const res = await connection.response();
    connection.destroy();
    expect(res?.status).toBeGreaterThanOrEqual(400);
    expect(res?.status).toBeLessThan(500);
    expect(connection.received).not.toContain("<script");
  });
}
