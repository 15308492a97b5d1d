import fc from "fast-check";
import { expect, test } from "vitest";
import type { TaskApp } from "../../src/app.ts";
import { appFrom, type TaskBody, taskText, utf8 } from "./helpers.ts";
import { type BodySpec, type Probe, REGRESSIONS, type Setup, type Target } from "./properties.examples.ts";

/** Paths the contract leaves open (percent-encoded or doubled separators): only the rules for every response apply. */
const TARGETS_NOT_RULED = [
  "/%74asks",
  "/tasks%2F",
  "/%",
  "//tasks",
  "/tasks;x",
  "/%E0%A4%A",
  "/index%2Ephp",
  "/tasks%00",
];

const ALLOWED_ORIGIN = "https://app.example.com";
const DEFAULT_LIMIT = 1024 * 1024;
const MISSING_FIELD = "Title or completed status is missing";
/**
 * Every status the contract names for what a client sends. 507 (a full list) is the only 5xx among
 * them; any other, 500 included, would answer a client's mistake as the server's fault.
 */
const CONTRACT_STATUSES = [200, 204, 304, 400, 404, 405, 413, 415, 507];
/** The whole run's budget: enough sequences to reach every branch, few enough to finish in seconds. */
const NUM_RUNS = 300;

// --- Arbitraries ---------------------------------------------------------------------------------

const setupArb: fc.Arbitrary<Setup> = fc.record({
  basePath: fc.constantFrom("", "/api"),
  cors: fc.boolean(),
  maxTasks: fc.oneof({ weight: 3, arbitrary: fc.constant(100_000) }, fc.integer({ min: 1, max: 5 })),
  maxBodyBytes: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, fc.integer({ min: 1, max: 512 })),
});

/** Request methods: fetch refuses CONNECT, TRACE and TRACK, so they never reach a server through it. */
const methodArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant("POST") },
  { weight: 2, arbitrary: fc.constantFrom("GET", "HEAD") },
  fc.constantFrom("PUT", "PATCH", "DELETE", "OPTIONS", "QUERY", "PURGE"),
  fc.constantFrom("get", "head", "post", "put", "patch", "delete", "options", "Post", "gEt"),
  fc
    .stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/)
    .filter((method) => !["CONNECT", "TRACE", "TRACK"].includes(method.toUpperCase())),
);

const segmentArb = fc.stringMatching(/^[A-Za-z0-9_~-]{1,12}$/);
const queryArb = fc.oneof(
  fc.constant(""),
  fc.webQueryParameters().map((query) => `?${query}`),
  fc.constantFrom("?<script>alert(1)</script>", "?id=1&id=2", "?%", "?title=%00"),
);

const targetArb: fc.Arbitrary<Target> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom<Target>(
      { kind: "list", path: "/tasks" },
      { kind: "list", path: "/index.php" },
      { kind: "list", path: "/tasks/../index.php" },
    ),
  },
  fc.constantFrom<Target>(
    { kind: "list-without-base", path: "/tasks" },
    { kind: "document", path: "/openapi.json" },
    { kind: "home", path: "/" },
    { kind: "unknown", path: "/tasks/" },
    { kind: "unknown", path: "/Tasks" },
    { kind: "unknown", path: "/tasks/007" },
    { kind: "unknown", path: "/<script>alert(1)</script>" },
    { kind: "unknown", path: '/"><img src=x onerror=alert(1)>' },
  ),
  fc
    .array(segmentArb, { minLength: 1, maxLength: 4 })
    .map((segments) => `/${segments.join("/")}`)
    .filter((path) => !["/tasks", "/index.php", "/openapi.json"].includes(path))
    .map((path): Target => ({ kind: "unknown", path })),
  fc.constantFrom(...TARGETS_NOT_RULED).map((path): Target => ({ kind: "not-ruled", path })),
);

/** Content-Types a client may send: none, JSON ones with parameters and odd casing, and others. */
const contentTypeArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      'Application/Json;charset="utf-8"',
      "application/vnd.api+json",
      "application/problem+json; q=1",
      "application/json;",
    ),
  },
  fc.constantFrom(
    "text/plain",
    "text/json",
    "text/plain; charset=utf-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=----x",
    "application/jsonp",
    "application/json+xml",
    "application/xml",
    "<script>",
    "",
  ),
  fc.stringMatching(/^[a-z]{1,8}\/[a-z0-9.+-]{1,12}(; ?[a-z]{1,6}=[a-z0-9]{0,6})?$/),
);

const titleArb = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    "\ud800",
    "a\udfffb",
    "\udc00\ud800",
    "<script>alert(1)</script>",
    "</script><script>alert(1)</script>",
    "\u0000\u001f\u2028\u2029",
    "🚀",
    "__proto__",
  ),
);

/** Keys that have tripped naive object handling: they must neither be read through the prototype nor stored. */
const hostileKeyArb = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "id");

/** A JSON object text built entry by entry, so that `__proto__` becomes an own key and duplicates survive. */
function objectText(entries: readonly (readonly [string, unknown])[]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? "null"}`).join(",")}}`;
}

const taskEntriesArb = fc
  .record({
    title: titleArb,
    completed: fc.boolean(),
    extra: fc.array(fc.tuple(fc.oneof(hostileKeyArb, fc.string({ maxLength: 8 })), fc.jsonValue({ maxDepth: 2 })), {
      maxLength: 3,
    }),
  })
  .chain(({ title, completed, extra }) =>
    fc.shuffledSubarray(
      [["title", title] as const, ["completed", completed] as const, ...extra],
      // Mostly both fields, sometimes one missing.
      { minLength: Math.max(1, extra.length + 1) },
    ),
  );

const bodyArb: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 4, arbitrary: taskEntriesArb.map((entries): BodySpec => ({ text: objectText(entries) })) },
  {
    weight: 2,
    arbitrary: fc.record({ title: fc.jsonValue({ maxDepth: 2 }), completed: fc.jsonValue({ maxDepth: 2 }) }).map(
      ({ title, completed }): BodySpec => ({
        text: objectText([
          ["title", title],
          ["completed", completed],
        ]),
      }),
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((value): BodySpec => ({ text: JSON.stringify(value) })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes): BodySpec => ({ bytes })) },
  {
    weight: 1,
    arbitrary: fc.tuple(taskEntriesArb, fc.nat()).map(([entries, cut]): BodySpec => {
      const text = objectText(entries);
      return { text: text.slice(0, cut % text.length) };
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ depth: fc.integer({ min: 1, max: 300_000 }), asTitle: fc.boolean() })
      .map(({ depth, asTitle }): BodySpec => ({ nested: depth, asTitle })),
  },
  { weight: 1, arbitrary: fc.integer({ min: -40, max: 40 }).map((overLimit): BodySpec => ({ overLimit })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<BodySpec>(
      { text: "" },
      { text: " \r\n\t" },
      { text: '\ufeff{"title":"After a byte order mark","completed":true}' },
      {
        bytes: Uint8Array.of(0x7b, 0x22, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d),
      },
      { bytes: Uint8Array.of(0xc0, 0xaf) },
      { bytes: Uint8Array.of(0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00) },
      { text: '{"title":"Raw lone \ud800 surrogate","completed":false}' },
      { text: '{"title":"a","completed":true,"title":5}' },
      { text: '{"__proto__":{"title":"Through the prototype","completed":true}}' },
      { text: '{"constructor":{"prototype":{"title":"x"}},"title":"Kept","completed":true}' },
    ),
  },
);

const headerValueArb = fc.oneof(
  fc.string({ unit: "binary-ascii", maxLength: 30 }).filter((value) => /^[\x20-\x7e\t]*$/.test(value)),
  fc.constantFrom("<script>alert(1)</script>", ALLOWED_ORIGIN, "https://evil.example", "null", "*"),
);
const headerNameArb = fc.oneof(
  fc.constantFrom(
    "Origin",
    "Access-Control-Request-Method",
    "Access-Control-Request-Headers",
    "X-Request-Id",
    "Accept",
    "Accept-Encoding",
    "Content-Encoding",
    "Authorization",
    "Cookie",
    "X-Forwarded-For",
    "X-HTTP-Method-Override",
  ),
  fc.stringMatching(/^X-[A-Za-z0-9-]{1,16}$/),
);

const probeArb: fc.Arbitrary<Probe> = fc.record({
  method: methodArb,
  target: targetArb,
  query: queryArb,
  contentType: contentTypeArb,
  contentLength: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("none", "exact") },
    fc.constantFrom("understated", "over-limit"),
  ),
  ifNoneMatch: fc.constantFrom("none", "current", "weak-current", "any", "stale"),
  headers: fc.array(fc.tuple(headerNameArb, headerValueArb), { maxLength: 3 }),
  body: bodyArb,
});

// --- The contract as an oracle -------------------------------------------------------------------

/** The list as a plain GET shows it between two probes. */
interface ListState {
  readonly text: string;
  readonly etag: string;
  readonly tasks: readonly TaskBody[];
}

/** What the contract says a probe must get: an exact status, or only the rules every response follows. */
type Expectation =
  | { readonly status: number; readonly message?: string; readonly allow?: string; readonly created?: TaskBody }
  | undefined;

function limitOf(setup: Setup): number {
  return setup.maxBodyBytes ?? DEFAULT_LIMIT;
}

/** `application/json` or `application/*+json` with any parameters, as CONTRACT.md words it. */
function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || /^application\/[^\s/;]+\+json$/.test(mediaType);
}

function bodyBytes(spec: BodySpec, limit: number): Uint8Array<ArrayBuffer> {
  if ("text" in spec) return utf8(spec.text);
  if ("bytes" in spec) return Uint8Array.from(spec.bytes);
  if ("nested" in spec) {
    const nested = `${"[".repeat(spec.nested)}${"]".repeat(spec.nested)}`;
    return utf8(spec.asTitle ? `{"title":${nested},"completed":true}` : nested);
  }
  const frame = '{"title":"","completed":false}';
  return utf8(`{"title":"${"x".repeat(Math.max(0, limit - frame.length + spec.overLimit))}","completed":false}`);
}

function routeOf(target: Target, setup: Setup): Target["kind"] {
  if (target.kind === "list-without-base") return setup.basePath === "" ? "list" : "unknown";
  return target.kind;
}

/** The response CONTRACT.md prescribes for a POST to the list, checked in the contract's order. */
function expectedPost(setup: Setup, probe: Probe, bytes: Uint8Array, state: ListState): Expectation {
  const limit = limitOf(setup);
  if (probe.contentLength === "over-limit" || bytes.byteLength > limit) return { status: 413 };
  if (probe.contentType !== undefined && !isJsonMediaType(probe.contentType)) return { status: 415 };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return { status: 400 };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { status: 400 };
  const title = Object.hasOwn(value, "title") ? (value as { title: unknown }).title : undefined;
  const completed = Object.hasOwn(value, "completed") ? (value as { completed: unknown }).completed : undefined;
  if (title === undefined || title === null || completed === undefined || completed === null) {
    return { status: 400, message: MISSING_FIELD };
  }
  if (typeof title !== "string" || !title.isWellFormed() || typeof completed !== "boolean") return { status: 400 };
  if (state.tasks.length >= setup.maxTasks) return { status: 507 };
  const lastId = state.tasks.at(-1)?.id ?? 0;
  return { status: 200, created: { id: lastId + 1, title, completed } };
}

function expected(setup: Setup, probe: Probe, method: string, bytes: Uint8Array, state: ListState): Expectation {
  const route = routeOf(probe.target, setup);
  if (route === "not-ruled") return undefined;
  if (route === "unknown") return { status: 404, message: "Not found" };
  if (route === "home") {
    if (method === "GET" || method === "HEAD") return { status: probe.ifNoneMatch === "any" ? 304 : 200 };
    return { status: 405, allow: "GET, HEAD" };
  }
  if (method === "OPTIONS" && setup.cors) return { status: 204 };
  if (route === "document") {
    if (method === "GET" || method === "HEAD") return { status: probe.ifNoneMatch === "any" ? 304 : 200 };
    return { status: 405, allow: "GET, HEAD" };
  }
  if (method === "GET" || method === "HEAD") {
    return { status: ["current", "weak-current", "any"].includes(probe.ifNoneMatch) ? 304 : 200 };
  }
  if (method === "POST") return expectedPost(setup, probe, bytes, state);
  return { status: 405, allow: "GET, HEAD, POST" };
}

// --- Running a probe -----------------------------------------------------------------------------

function envOf(setup: Setup): Record<string, string> {
  return {
    LOG_LEVEL: "off",
    BASE_PATH: setup.basePath,
    MAX_TASKS: String(setup.maxTasks),
    ...(setup.maxBodyBytes === undefined ? {} : { MAX_BODY_BYTES: String(setup.maxBodyBytes) }),
    ...(setup.cors ? { CORS_ORIGINS: ALLOWED_ORIGIN } : {}),
  };
}

function pathOf(setup: Setup, probe: Probe): string {
  const base = probe.target.kind === "list-without-base" ? "" : setup.basePath;
  return `${base}${probe.target.path}${probe.query}`;
}

function requestOf(setup: Setup, probe: Probe, bytes: Uint8Array<ArrayBuffer>, state: ListState): Request {
  const headers = new Headers();
  for (const [name, value] of probe.headers) headers.append(name, value);
  if (probe.contentType !== undefined) headers.set("Content-Type", probe.contentType);
  const declared = {
    none: undefined,
    exact: bytes.byteLength,
    understated: Math.floor(bytes.byteLength / 2),
    "over-limit": limitOf(setup) + 1,
  }[probe.contentLength];
  if (declared !== undefined) headers.set("Content-Length", String(declared));
  const etag = {
    none: undefined,
    current: state.etag,
    "weak-current": `W/${state.etag}`,
    any: "*",
    stale: '"stale-0"',
  }[probe.ifNoneMatch];
  if (etag !== undefined) headers.set("If-None-Match", etag);
  const url = `http://localhost${pathOf(setup, probe)}`;
  const method = new Request(url, { method: probe.method }).method;
  const withBody = method !== "GET" && method !== "HEAD";
  return new Request(url, { method: probe.method, headers, ...(withBody ? { body: bytes } : {}) });
}

async function readList(app: TaskApp, setup: Setup): Promise<ListState> {
  const res = await app.request(`${setup.basePath}/tasks`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, etag: res.headers.get("ETag") ?? "", tasks: JSON.parse(text) as TaskBody[] };
}

/** The rules every response follows, whatever was asked. */
function expectWellFormed(res: Response, method: string, text: string, route: Target["kind"]): void {
  expect(CONTRACT_STATUSES).toContain(res.status);
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  if (text !== "") {
    const type = route === "home" && res.status === 200 ? "text/html; charset=utf-8" : "application/json";
    expect(res.headers.get("Content-Type"), "every body but the home page is JSON").toBe(type);
  }
  if (method === "HEAD" || [204, 304, 405].includes(res.status)) expect(text).toBe("");
  if (res.status === 405) expect(res.headers.get("Allow")).not.toBeNull();
  if (res.status >= 400 && res.status !== 405) {
    expect(res.headers.get("Content-Type")).toBe("application/json");
    for (const [name, value] of res.headers) expect(value, `${name} of an error response`).not.toContain("<");
    if (method !== "HEAD") {
      const error: unknown = JSON.parse(text);
      expect(Object.keys(error as object)).toEqual(["message"]);
      expect(typeof (error as { message: unknown }).message).toBe("string");
    }
  }
}

async function runProbes(setup: Setup, probes: readonly Probe[]): Promise<void> {
  const app = appFrom(envOf(setup));
  let before = await readList(app, setup);
  for (const probe of probes) {
    const bytes = bodyBytes(probe.body, limitOf(setup));
    const request = requestOf(setup, probe, bytes, before);
    const method = request.method;
    const res = await app.request(request);
    const text = await res.text();
    const after = await readList(app, setup);

    expectWellFormed(res, method, text, routeOf(probe.target, setup));
    const answer = expected(setup, probe, method, bytes, before);
    if (answer !== undefined) {
      expect(res.status).toBe(answer.status);
      if (answer.message !== undefined && method !== "HEAD") {
        expect(text).toBe(JSON.stringify({ message: answer.message }));
      }
      if (answer.allow !== undefined) expect(res.headers.get("Allow")).toBe(answer.allow);
      if (answer.created !== undefined) expect(text).toBe(taskText(answer.created));
      if (answer.status === 200 && method === "GET" && routeOf(probe.target, setup) === "list") {
        expect(text).toBe(before.text);
      }
    }
    if (method === "POST" && res.status === 200) {
      const separator = before.tasks.length === 0 ? "" : ",";
      expect(after.text, "the list gains exactly the task the POST answered").toBe(
        `${before.text.slice(0, -1)}${separator}${text}]`,
      );
      expect(after.tasks.at(-1)?.id).toBe((before.tasks.at(-1)?.id ?? 0) + 1);
    } else {
      expect(after.text, "a request that is not a successful POST adds nothing").toBe(before.text);
    }
    before = after;
  }
}

test("every request, however hostile, gets a response the contract names, and only a 200 POST adds its task", async () => {
  await fc.assert(fc.asyncProperty(setupArb, fc.array(probeArb, { minLength: 1, maxLength: 6 }), runProbes), {
    numRuns: NUM_RUNS,
    examples: REGRESSIONS,
  });
});
