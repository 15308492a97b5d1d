import { describe, expect, test, vi } from "vitest";
import { createApp } from "../../src/app.ts";
import { type EnvRecord, parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import type { TaskStore } from "../../src/engine/task-store.ts";
import type { RequestState } from "../../src/http/request-context.ts";
import { jsonString, requestLogger } from "../../src/http/request-log.ts";
import type { RequestLog } from "../../src/http/request-wrapper.ts";
import { failingKeys } from "./helpers.ts";

/** An app whose log lines are collected, each parsed as the JSON object it must be. */
function loggedApp(env: EnvRecord, store: TaskStore = new MemoryStore()) {
  const lines: { stream: "out" | "err"; entry: Record<string, unknown> }[] = [];
  const sink = {
    log: (line: string) => lines.push({ stream: "out", entry: JSON.parse(line) }),
    error: (line: string) => lines.push({ stream: "err", entry: JSON.parse(line) }),
  };
  return { app: createApp({ store, config: parseAppConfig(env), logSink: sink }), lines };
}

const failingStore: TaskStore = {
  read: async () => {
    throw new RangeError("database disk image is malformed");
  },
  append: async () => {
    throw new RangeError("database disk image is malformed");
  },
  update: async () => {
    throw new RangeError("database disk image is malformed");
  },
  remove: async () => {
    throw new RangeError("database disk image is malformed");
  },
  nextChange: async () => {
    throw new RangeError("database disk image is malformed");
  },
  keys: failingKeys(async () => {
    throw new RangeError("database disk image is malformed");
  }),
};

describe("request log", () => {
  test("writes one JSON line per request with time, request id, method, path, status, duration and bytes", async () => {
    const { app, lines } = loggedApp({});
    const res = await app.request("/tasks?x=1", { headers: { "X-Request-Id": "req-1" } });
    const body = await res.arrayBuffer();
    expect(lines).toHaveLength(1);
    const [{ stream, entry }] = lines as [(typeof lines)[number]];
    expect(stream).toBe("out");
    expect(entry).toMatchObject({
      level: "info",
      requestId: "req-1",
      method: "GET",
      path: "/tasks",
      status: 200,
      bytesOut: body.byteLength,
    });
    expect(Date.parse(String(entry.time))).not.toBeNaN();
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    expect(entry).not.toHaveProperty("error");
  });

  test("writes the time of each line as an ISO string to the millisecond", async () => {
    const { app, lines } = loggedApp({});
    const times = [
      "2026-01-02T03:04:05.000Z",
      "2026-01-02T03:04:05.007Z",
      "2026-01-02T03:04:05.045Z",
      "2026-01-02T03:04:05.999Z",
      "2026-01-02T03:04:06.123Z",
    ];
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      for (const time of times) {
        vi.setSystemTime(new Date(time));
        await app.request("/tasks");
      }
    } finally {
      vi.useRealTimers();
    }
    expect(lines.map(({ entry }) => entry.time)).toEqual(times);
  });

  test("logs HEAD, 304 and 405 with no bytes out", async () => {
    const { app, lines } = loggedApp({});
    const etag = (await app.request("/tasks")).headers.get("ETag") ?? "";
    await app.request("/tasks", { method: "HEAD" });
    await app.request("/tasks", { headers: { "If-None-Match": etag } });
    await app.request("/tasks", { method: "PUT" });
    expect(lines.slice(1).map(({ entry }) => [entry.method, entry.status, entry.bytesOut])).toEqual([
      ["HEAD", 200, 0],
      ["GET", 304, 0],
      ["PUT", 405, 0],
    ]);
  });

  test("logs a client error at warn and a server error at error with its cause, on stderr", async () => {
    const { app, lines } = loggedApp({}, failingStore);
    await app.request("/tasks", { method: "POST", body: "{", headers: { "Content-Type": "application/json" } });
    await app.request("/tasks");
    expect(lines.map(({ stream, entry }) => [stream, entry.level, entry.status])).toEqual([
      ["out", "warn", 400],
      ["err", "error", 500],
    ]);
    expect(lines[1]?.entry.error).toMatchObject({ name: "RangeError", message: "database disk image is malformed" });
  });

  test.each([
    { level: "debug", statuses: [200, 400, 500] },
    { level: "info", statuses: [200, 400, 500] },
    { level: "warn", statuses: [400, 500] },
    { level: "error", statuses: [500] },
    { level: "off", statuses: [] },
  ])("LOG_LEVEL=$level logs only lines at or above it", async ({ level, statuses }) => {
    let fail = false;
    const memory = new MemoryStore();
    const store: TaskStore = {
      read: () => (fail ? failingStore.read() : memory.read()),
      append: (task, limits) => memory.append(task, limits),
      update: (id, patch, limits, ifMatch) => memory.update(id, patch, limits, ifMatch),
      remove: (id, ifMatch) => memory.remove(id, ifMatch),
      nextChange: (change, signal) => memory.nextChange(change, signal),
      keys: memory.keys,
    };
    const { app, lines } = loggedApp({ LOG_LEVEL: level }, store);
    await app.request("/tasks");
    await app.request("/tasks", { method: "POST", body: "[]", headers: { "Content-Type": "application/json" } });
    fail = true;
    await app.request("/tasks");
    expect(lines.map(({ entry }) => entry.status)).toEqual(statuses);
  });

  test("logs a request outside the base path too", async () => {
    const { app, lines } = loggedApp({ BASE_PATH: "/api" });
    await app.request("/elsewhere");
    expect(lines.map(({ entry }) => [entry.path, entry.status])).toEqual([["/elsewhere", 404]]);
  });

  test("at debug adds the query string and user agent", async () => {
    const { app, lines } = loggedApp({ LOG_LEVEL: "debug" });
    await app.request("/tasks?page=2", { headers: { "User-Agent": "curl/8" } });
    expect(lines[0]?.entry).toMatchObject({ query: "?page=2", userAgent: "curl/8" });
  });
});

describe("tokens a client puts in what is logged", () => {
  // Shaped like `openssl rand -base64 32`, with the characters a URL may carry percent-encoded.
  const TOKEN = "q1Zx+8Tk/9aB3cD4eF5gH6iJ7kL8mN9oP0rS1tU2vW=";
  const written = [
    ["plainly", TOKEN],
    ["percent-encoded but for its /", "q1Zx%2B8Tk/9aB3cD4eF5gH6iJ7kL8mN9oP0rS1tU2vW%3D"],
    ["percent-encoded in upper case", "q1Zx%2B8Tk%2F9aB3cD4eF5gH6iJ7kL8mN9oP0rS1tU2vW%3D"],
    ["percent-encoded in lower case", "q1Zx%2b8Tk%2f9aB3cD4eF5gH6iJ7kL8mN9oP0rS1tU2vW%3d"],
    ["with letters percent-encoded too", "%71%31Zx%2B8Tk/9aB3cD4eF5gH6iJ7kL8mN9oP0rS1tU2vW%3D"],
  ] as const;

  test.each(written)("are hidden when written %s in the path, at the default level", async (_how, text) => {
    const { app, lines } = loggedApp({ READ_TOKENS: TOKEN });
    await app.request(`/tasks/${text}`);
    const logged = JSON.stringify(lines);
    expect(logged).toContain("[redacted]");
    expect(logged).not.toContain(text);
    expect(logged).not.toContain(TOKEN);
  });

  test.each(written)("are hidden when written %s in the query, at debug", async (_how, text) => {
    const { app, lines } = loggedApp({ READ_TOKENS: TOKEN, LOG_LEVEL: "debug" });
    await app.request(`/tasks?access_token=${text}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const logged = JSON.stringify(lines);
    expect(logged).toContain("[redacted]");
    expect(logged).not.toContain(text);
  });
});

describe("what a client sends cannot forge a log field or break the line", () => {
  const HOSTILE = [
    '"',
    "\\",
    "\n",
    "\r",
    "\t",
    "\u0000",
    "\u001f",
    "\u007f",
    "\u2028",
    "\u2029",
    "\ud800",
    "\udfff",
    "ÿ",
    "😀",
  ];
  const KEYS = ["time", "level", "requestId", "method", "path", "status", "durationMs", "bytesOut"];

  /** Each string the sink was given, checked to be one line holding one JSON object, parsed. */
  function parsedLines(written: readonly string[]): Record<string, unknown>[] {
    return written.map((text) => {
      expect(text).not.toMatch(/[\n\r\u2028\u2029]/);
      const entry: unknown = JSON.parse(text);
      expect(entry).toBeTypeOf("object");
      return entry as Record<string, unknown>;
    });
  }

  test("a path, query and headers carrying quotes, backslashes, newlines and line separators", async () => {
    const written: string[] = [];
    const sink = { log: (line: string) => written.push(line), error: (line: string) => written.push(line) };
    const app = createApp({ store: new MemoryStore(), config: parseAppConfig({ LOG_LEVEL: "debug" }), logSink: sink });
    const path = `/tasks/${HOSTILE.slice(0, 10).map(encodeURIComponent).join("x")}`;
    const query = `?q=${HOSTILE.slice(0, 2).join("")}%0A%E2%80%A8%ED%A0%80&"x":1`;
    const agent = 'curl/8 "\\",\u00ff\u007f"level":"error"';
    await app.request(`${path}${query}`, { headers: { "User-Agent": agent, "X-Request-Id": 'a","level":"x' } });
    await app.request("/tasks", {
      method: "POST",
      body: "{",
      headers: { "User-Agent": agent, "Content-Type": "application/json" },
    });
    const [first, second] = parsedLines(written);
    expect(Object.keys(first ?? {})).toEqual([...KEYS, "query", "userAgent"]);
    expect(first).toMatchObject({ method: "GET", status: 404, userAgent: agent });
    expect(first?.path).toBe(`/tasks/${HOSTILE.slice(0, 10).join("x")}`);
    expect(first?.query).toBe(new URL(`http://localhost${path}${query}`).search);
    expect(first?.requestId).toMatch(/^[\w-]+$/);
    expect(Object.keys(second ?? {})).toEqual([...KEYS, "list", "query", "userAgent"]);
    expect(second).toMatchObject({ method: "POST", path: "/tasks", status: 400, userAgent: agent });
  });

  test("lone surrogates and control characters in every field a request gives, and in an error", () => {
    const written: string[] = [];
    const sink = { log: (line: string) => written.push(line), error: (line: string) => written.push(line) };
    const log = requestLogger("debug", sink, ["s3cret"]);
    const text = `${HOSTILE.join("")}s3cret`;
    const error = new Error(text);
    error.stack = `Error: ${text}\n    at nowhere`;
    const c = {
      req: { path: `/tasks/${text}`, url: "http://localhost/tasks", header: () => text },
      error,
    } as unknown as Parameters<RequestLog["write"]>[0];
    const state: RequestState = {
      id: text,
      start: performance.now(),
      bytes: 5,
      complete: true,
      text: false,
      method: text,
      list: undefined,
      key: undefined,
      logFields: { query: text, userAgent: text },
      headers: undefined,
    };
    log.write(c, state, new Response(null, { status: 500 }));
    const [entry] = parsedLines(written);
    const hidden = `${HOSTILE.join("")}[redacted]`;
    expect(Object.keys(entry ?? {})).toEqual([...KEYS, "query", "userAgent", "error"]);
    expect(entry).toMatchObject({
      level: "error",
      requestId: hidden,
      method: hidden,
      path: `/tasks/${hidden}`,
      status: 500,
      bytesOut: 5,
      query: hidden,
      userAgent: hidden,
      error: { name: "Error", message: hidden, stack: `Error: ${hidden}\n    at nowhere` },
    });
  });

  test.each(HOSTILE.map((character) => [character.codePointAt(0)?.toString(16).padStart(4, "0"), character]))(
    "jsonString of U+%s is that string's JSON, on one line",
    (_code, character) => {
      for (const text of [character, `a${character}b`, character.repeat(3)]) {
        const json = jsonString(text);
        expect(json).not.toMatch(/[\n\r\u2028\u2029]/);
        expect(JSON.parse(json)).toBe(text);
      }
    },
  );
});
