import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import { appFrom, ENTRY_POINTS, expectJsonError, snapshot, utf8 } from "./helpers.ts";

const READ = "read-token-0123456789";
const WRITE = "write-token-0123456789";
const OTHER_WRITE = "Zm9yLWEtc2Vjb25kLWNsaWVudA==";
const TOKENS = { READ_TOKENS: READ, WRITE_TOKENS: `${WRITE}, ${OTHER_WRITE}` };

const CHALLENGE = 'Bearer realm="tasks"';
const INVALID = 'Bearer realm="tasks", error="invalid_token"';
const NO_TOKEN = "Request needs a bearer token: send Authorization: Bearer <token>";
const UNKNOWN_TOKEN = "Bearer token is not valid: send a token this service was given";
const READ_ONLY = "This token may only read the list: send a token that may add tasks";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const task = JSON.stringify({ title: "Guarded", completed: false });

function post(headers: Record<string, string>, body: string | Uint8Array<ArrayBuffer> = task): RequestInit {
  return { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } };
}

async function expectChallenge(res: Response, challenge: string, message: string): Promise<void> {
  expect(res.headers.get("WWW-Authenticate")).toBe(challenge);
  await expectJsonError(res, 401, message);
}

describe.each(ENTRY_POINTS)("bearer tokens on $path", ({ env, path }) => {
  const guarded = () => appFrom({ ...env, ...TOKENS });

  test("with no tokens set, anyone may read and append", async () => {
    const app = appFrom(env);
    expect((await app.request(path)).status).toBe(200);
    expect((await app.request(path, post({}))).status).toBe(200);
  });

  test("a GET, HEAD or POST without a token returns 401 with the Bearer challenge", async () => {
    const app = guarded();
    await expectChallenge(await app.request(path), CHALLENGE, NO_TOKEN);
    await expectChallenge(await app.request(path, post({})), CHALLENGE, NO_TOKEN);
    const head = await app.request(path, { method: "HEAD" });
    expect(head.status).toBe(401);
    expect(head.headers.get("WWW-Authenticate")).toBe(CHALLENGE);
    expect(await head.text()).toBe("");
  });

  test.each([
    { name: "an unknown token", header: "Bearer not-a-token-we-know-0123" },
    { name: "a token that differs from a known one in its last character", header: `Bearer ${WRITE.slice(0, -1)}X` },
    { name: "a known token with something after it", header: `Bearer ${WRITE}x` },
    { name: "a malformed bearer token", header: "Bearer two words" },
  ])("$name returns 401 with error=invalid_token", async ({ header }) => {
    const app = guarded();
    await expectChallenge(await app.request(path, { headers: { Authorization: header } }), INVALID, UNKNOWN_TOKEN);
    await expectChallenge(await app.request(path, post({ Authorization: header })), INVALID, UNKNOWN_TOKEN);
  });

  test.each([`Basic ${btoa(`user:${WRITE}`)}`, WRITE, `Token ${WRITE}`, "Bearer"])(
    "an Authorization header without a bearer token (%s) counts as no token",
    async (header) => {
      await expectChallenge(await guarded().request(path, { headers: { Authorization: header } }), CHALLENGE, NO_TOKEN);
    },
  );

  test("a read token reads, and a POST with it returns 403 and adds nothing", async () => {
    const app = guarded();
    const before = await app.request(path, { headers: bearer(READ) });
    expect(before.status).toBe(200);
    await expectJsonError(await app.request(path, post(bearer(READ))), 403, READ_ONLY);
    const after = await app.request(path, { headers: bearer(READ) });
    expect(await after.text()).toBe(await before.text());
  });

  test("every write token appends, and may read", async () => {
    const app = guarded();
    for (const token of [WRITE, OTHER_WRITE]) {
      const created = await app.request(path, post(bearer(token)));
      expect(created.status).toBe(200);
      const list = await app.request(path, { headers: bearer(token) });
      expect(await list.json()).toContainEqual(await created.json());
    }
  });

  test("the scheme name is read in any case", async () => {
    expect((await guarded().request(path, { headers: { Authorization: `bEaReR ${READ}` } })).status).toBe(200);
  });

  test("a conditional GET or HEAD without a token returns 401, never 304; with one, 304", async () => {
    const app = guarded();
    const etag = (await app.request(path, { headers: bearer(READ) })).headers.get("ETag") ?? "";
    for (const method of ["GET", "HEAD"]) {
      const anonymous = await app.request(path, { method, headers: { "If-None-Match": etag } });
      expect(anonymous.status).toBe(401);
      const known = await app.request(path, { method, headers: { "If-None-Match": etag, ...bearer(READ) } });
      expect(known.status).toBe(304);
    }
  });

  test.each([
    { name: "a body over MAX_BODY_BYTES", body: utf8(task.padEnd(100, " ")), type: "application/json", status: 413 },
    { name: "a Content-Type that is not JSON", body: utf8(task), type: "text/plain", status: 415 },
    { name: "malformed JSON", body: utf8("{"), type: "application/json", status: 400 },
    { name: "a missing field", body: utf8("{}"), type: "application/json", status: 400 },
  ])(
    "access is checked first: $name returns 401 without a token, 403 with a read token, $status with a write token",
    async ({ body, type, status }) => {
      const app = appFrom({ ...env, ...TOKENS, MAX_BODY_BYTES: "64" });
      const send = (headers: Record<string, string>) =>
        app.request(path, { method: "POST", body, headers: { "Content-Type": type, ...headers } });
      expect((await send({})).status).toBe(401);
      expect((await send({ Authorization: "Bearer unknown-token-0123456789" })).status).toBe(401);
      expect((await send(bearer(READ))).status).toBe(403);
      expect((await send(bearer(WRITE))).status).toBe(status);
    },
  );

  test("with only WRITE_TOKENS set, anyone may read but only writers append", async () => {
    const app = appFrom({ ...env, WRITE_TOKENS: WRITE });
    expect((await app.request(path)).status).toBe(200);
    await expectChallenge(await app.request(path, post({})), CHALLENGE, NO_TOKEN);
    expect((await app.request(path, post(bearer(WRITE)))).status).toBe(200);
  });

  test("with only READ_TOKENS set, reading needs a token and anyone may append", async () => {
    const app = appFrom({ ...env, READ_TOKENS: READ });
    await expectChallenge(await app.request(path), CHALLENGE, NO_TOKEN);
    expect((await app.request(path, post({}))).status).toBe(200);
    expect((await app.request(path, { headers: bearer(READ) })).status).toBe(200);
  });

  test("other methods still return 405 with Allow, with or without a token", async () => {
    const app = guarded();
    for (const headers of [{}, bearer(READ)]) {
      const res = await app.request(path, { method: "DELETE", headers });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET, HEAD, POST");
    }
  });

  test("a refused request changes nothing", async () => {
    const app = guarded();
    const read = (await app.request(path, { headers: bearer(READ) })).headers.get("ETag");
    await app.request(path, post({}));
    await app.request(path, post(bearer(READ)));
    await app.request(path, post({ Authorization: "Bearer unknown-token-0123456789" }));
    expect((await app.request(path, { headers: bearer(READ) })).headers.get("ETag")).toBe(read);
  });
});

describe("bearer tokens and the rest of the service", () => {
  test("the OpenAPI document and unknown paths need no token", async () => {
    const app = appFrom(TOKENS);
    expect((await app.request("/openapi.json")).status).toBe(200);
    expect((await app.request("/elsewhere")).status).toBe(404);
  });

  test("with CORS on, a preflight allows the Authorization header, and a 401 carries the CORS headers", async () => {
    const app = appFrom({ ...TOKENS, CORS_ORIGINS: "https://app.example.com" });
    const preflight = await app.request("/tasks", {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example.com",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("authorization");
    const refused = await app.request("/tasks", { headers: { Origin: "https://app.example.com" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example.com");
    expect(refused.headers.get("Access-Control-Expose-Headers")).toContain("WWW-Authenticate");
  });

  test("no token ever appears in a log line, even at debug with tokens sent in the query string", async () => {
    const lines: string[] = [];
    const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const config = parseAppConfig({ ...TOKENS, LOG_LEVEL: "debug" });
    const app = createApp({ store: new MemoryStore(), config, logSink: sink });
    await app.request(`/tasks?access_token=${WRITE}`, { headers: { ...bearer(READ), "User-Agent": `agent ${READ}` } });
    await app.request(`/tasks?token=${OTHER_WRITE}`, post(bearer(WRITE)));
    await app.request("/tasks", post(bearer(READ)));
    await app.request("/tasks", post({ Authorization: "Bearer unknown-token-0123456789" }));
    expect(lines).toHaveLength(4);
    for (const token of [READ, WRITE, OTHER_WRITE]) expect(lines.join("\n")).not.toContain(token);
  });

  test("a response never echoes the token it was sent", async () => {
    const app = appFrom(TOKENS);
    for (const token of [READ, "unknown-token-0123456789"]) {
      const res = await app.request("/tasks", post(bearer(token)));
      expect(await res.text()).not.toContain(token);
      expect([...res.headers.values()].join("\n")).not.toContain(token);
    }
  });

  test("a list read with a token is the same list anyone reads without tokens configured", async () => {
    const store = new MemoryStore();
    const open = createApp({ store, config: parseAppConfig({}) });
    const guarded = createApp({ store, config: parseAppConfig(TOKENS) });
    const seen = await guarded.request("/tasks", { headers: bearer(READ) });
    expect(await seen.text()).toBe((await snapshot(open, "/tasks")).text);
  });
});
