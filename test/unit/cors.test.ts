import { describe, expect, test } from "vitest";
import { appFrom, ENTRY_POINTS, expectJsonError } from "./helpers.ts";

const ALLOWED = "https://app.example.com";
const ALSO_ALLOWED = "http://localhost:5173";
const REFUSED = "https://evil.example";

const preflight = (origin: string, method = "POST") => ({
  method: "OPTIONS",
  headers: {
    Origin: origin,
    "Access-Control-Request-Method": method,
    "Access-Control-Request-Headers": "content-type",
  },
});

const postFrom = (origin: string) => ({
  method: "POST",
  body: JSON.stringify({ title: "From the browser", completed: false }),
  headers: { Origin: origin, "Content-Type": "application/json" },
});

function corsHeaders(res: Response): string[] {
  return [...res.headers.keys()].filter((name) => name.toLowerCase().startsWith("access-control-"));
}

describe.each(ENTRY_POINTS)("CORS on $path", ({ env, path }) => {
  describe("when CORS_ORIGINS is unset", () => {
    test("GET and POST from an origin carry no Access-Control-* headers", async () => {
      const app = appFrom(env);
      const get = await app.request(path, { headers: { Origin: ALLOWED } });
      expect(get.status).toBe(200);
      expect(corsHeaders(get)).toEqual([]);
      const post = await app.request(path, postFrom(ALLOWED));
      expect(post.status).toBe(200);
      expect(corsHeaders(post)).toEqual([]);
    });

    test("an OPTIONS preflight returns 405 with Allow and no Access-Control-* headers", async () => {
      const res = await appFrom(env).request(path, preflight(ALLOWED));
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET, HEAD, POST");
      expect(corsHeaders(res)).toEqual([]);
      expect(await res.text()).toBe("");
    });
  });

  describe("when CORS_ORIGINS is *", () => {
    const corsEnv = { ...env, CORS_ORIGINS: "*" };

    test.each([ALLOWED, REFUSED])("GET from %s is allowed and exposes the ETag", async (origin) => {
      const res = await appFrom(corsEnv).request(path, { headers: { Origin: origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(res.headers.get("Access-Control-Expose-Headers")).toContain("ETag");
    });

    test("an OPTIONS preflight returns 204 allowing GET, HEAD, POST and the Content-Type header", async () => {
      const res = await appFrom(corsEnv).request(path, preflight(ALLOWED));
      expect(res.status).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      const methods = res.headers.get("Access-Control-Allow-Methods")?.split(",") ?? [];
      expect(methods).toEqual(expect.arrayContaining(["GET", "HEAD", "POST"]));
      expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("content-type");
      expect(await res.text()).toBe("");
    });

    test("POST from an origin creates the task and is readable by the page", async () => {
      const res = await appFrom(corsEnv).request(path, postFrom(ALLOWED));
      expect(res.status).toBe(200);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(await res.json()).toEqual({ id: 3, title: "From the browser", completed: false });
    });

    test("a refused POST still lets the page read the error message", async () => {
      const res = await appFrom(corsEnv).request(path, {
        method: "POST",
        body: "{}",
        headers: { Origin: ALLOWED, "Content-Type": "application/json" },
      });
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
      await expectJsonError(res, 400, "Title or completed status is missing");
    });

    test("methods other than GET, HEAD, POST and OPTIONS still return 405", async () => {
      const res = await appFrom(corsEnv).request(path, { method: "DELETE", headers: { Origin: ALLOWED } });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET, HEAD, POST");
    });
  });

  describe("when CORS_ORIGINS is a list", () => {
    const corsEnv = { ...env, CORS_ORIGINS: `${ALLOWED}, ${ALSO_ALLOWED}` };

    test.each([ALLOWED, ALSO_ALLOWED])("GET from the listed origin %s gets it back as allowed", async (origin) => {
      const res = await appFrom(corsEnv).request(path, { headers: { Origin: origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
      expect(res.headers.get("Access-Control-Expose-Headers")).toContain("ETag");
      expect(res.headers.get("Vary")).toContain("Origin");
    });

    test.each([REFUSED, `${ALLOWED}.evil.example`, "null"])(
      "GET from the unlisted origin %s gets no Access-Control-Allow-Origin",
      async (origin) => {
        const res = await appFrom(corsEnv).request(path, { headers: { Origin: origin } });
        expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
        expect(res.headers.get("Vary")).toContain("Origin");
      },
    );

    test("an OPTIONS preflight from a listed origin returns 204 allowing it", async () => {
      const res = await appFrom(corsEnv).request(path, preflight(ALSO_ALLOWED));
      expect(res.status).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(ALSO_ALLOWED);
      expect(res.headers.get("Access-Control-Allow-Methods")?.split(",")).toContain("POST");
    });

    test("an OPTIONS preflight from an unlisted origin does not allow it", async () => {
      const res = await appFrom(corsEnv).request(path, preflight(REFUSED));
      expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    });

    test("POST from a listed origin is allowed, from an unlisted one is not", async () => {
      const app = appFrom(corsEnv);
      const allowed = await app.request(path, postFrom(ALLOWED));
      expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe(ALLOWED);
      const refused = await app.request(path, postFrom(REFUSED));
      expect(refused.headers.get("Access-Control-Allow-Origin")).toBeNull();
    });
  });
});

test("with CORS on, an OPTIONS request to a path that does not exist returns 404", async () => {
  const res = await appFrom({ CORS_ORIGINS: "*" }).request("/elsewhere", preflight(ALLOWED));
  await expectJsonError(res, 404, "Not found");
});

test.each([
  { path: "/openapi.json", methods: ["GET", "HEAD"] },
  { path: "/tasks/events", methods: ["GET", "HEAD"] },
  { path: "/tasks", methods: ["GET", "HEAD", "POST"] },
])("with CORS on, a preflight for $path allows exactly the methods it answers", async ({ path, methods }) => {
  const res = await appFrom({ CORS_ORIGINS: "*" }).request(path, preflight(ALLOWED));
  expect(res.status).toBe(204);
  expect(res.headers.get("Access-Control-Allow-Methods")?.split(",").sort()).toEqual([...methods].sort());
});
