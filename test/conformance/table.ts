import { type ConformanceOptions, jsonPost, type RequestSpec } from "./client.ts";
import type { TableCase } from "./expect.ts";

/** The 400 message the specification fixes. */
export const MISSING_FIELD_MESSAGE = "Title or completed status is missing";
/** The contract's default MAX_BODY_BYTES. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** The contract's default MAX_LIST_BYTES. */
export const DEFAULT_MAX_LIST_BYTES = 16 * 1024 * 1024;

const TASK_PATHS = ["/tasks", "/index.php"] as const;
const JSON_TYPE = { "Content-Type": "application/json" };
const LIST_HEADERS = { "Content-Type": "application/json", "Cache-Control": "no-cache" };
const NOT_FOUND = { error: { message: "Not found" } };
const MISSING = { error: { message: MISSING_FIELD_MESSAGE } };
const encoder = new TextEncoder();

/** Every request/answer pair of the contract that a table row can state. */
export function tableCases(options: ConformanceOptions): TableCase[] {
  return [
    ...readCases(),
    ...createCases(options),
    ...contentTypeCases(),
    ...invalidBodyCases(),
    ...fieldCases(),
    ...sizeCases(options),
    ...methodCases(options),
    ...openApiCases(options),
    ...homePageCases(options),
    ...notFoundCases(options),
  ];
}

/**
 * The rows whose responses a setting changes: body sizes (MAX_BODY_BYTES), methods and preflights
 * (CORS_ORIGINS), the documents (tokens declare the bearer scheme) and paths (BASE_PATH).
 */
export function settingTableCases(options: ConformanceOptions): TableCase[] {
  return [
    ...sizeCases(options),
    ...methodCases(options),
    ...openApiCases(options),
    ...homePageCases(options),
    ...notFoundCases(options),
  ];
}

/** The rows that write a task and read the list back: what a store must keep, byte for byte. */
export function storeTableCases(options: ConformanceOptions): TableCase[] {
  return [...readCases(), ...createCases(options)];
}

function readCases(): TableCase[] {
  return TASK_PATHS.flatMap((path): TableCase[] => [
    {
      name: `GET ${path} returns 200 with the list as JSON and Cache-Control: no-cache`,
      request: { method: "GET", path },
      status: 200,
      headers: LIST_HEADERS,
      body: "list",
    },
    {
      name: `GET ${path} ignores a query string other than after, completed and limit`,
      request: { method: "GET", path: `${path}?page=2&offset=1&id=1&Limit=1&done=true` },
      status: 200,
      headers: LIST_HEADERS,
      body: "list",
    },
    {
      name: `HEAD ${path} returns 200 with no body`,
      request: { method: "HEAD", path },
      status: 200,
      headers: LIST_HEADERS,
      body: "empty",
    },
  ]);
}

function createCases(options: ConformanceOptions): TableCase[] {
  const created = (name: string, request: RequestSpec, task: { title: string; completed: boolean }): TableCase => ({
    name,
    request,
    status: 200,
    body: { created: task },
  });
  const task = { title: "Write the conformance suite", completed: false };
  const unicode = { title: 'Grüße, 世界 🚀 "quoted" \\ tab\t line\nbreak \u0000 \u2028', completed: true };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return [
    created("POST /tasks returns 200 with the created task, appended with the next id", jsonPost("/tasks", task), task),
    created(
      "POST /index.php returns 200 with the created task, appended with the next id",
      jsonPost("/index.php", { title: "Post through the script path", completed: true }),
      { title: "Post through the script path", completed: true },
    ),
    created(
      'POST keeps an empty title and completed false as sent ("" and false count as present)',
      jsonPost("/tasks", { title: "", completed: false }),
      {
        title: "",
        completed: false,
      },
    ),
    created(
      "POST stores a title with Unicode, quotes, control characters and escapes unchanged",
      jsonPost("/tasks", unicode),
      unicode,
    ),
    created(
      "POST ignores a client-sent id and every field other than title and completed",
      jsonPost("/tasks", { id: 999_999, title: "Extra fields are dropped", completed: true, owner: "me", tags: ["a"] }),
      { title: "Extra fields are dropped", completed: true },
    ),
    created("POST ignores a query string", jsonPost("/tasks?id=7&completed=true", task), task),
    created(
      "POST reads a body without Content-Type as JSON",
      { method: "POST", path: "/tasks", body: JSON.stringify({ title: "No content type", completed: false }) },
      { title: "No content type", completed: false },
    ),
    created(
      "POST accepts application/json with parameters",
      withType("application/json; charset=utf-8", { title: "With charset", completed: true }),
      { title: "With charset", completed: true },
    ),
    created(
      "POST accepts an application/*+json media type",
      withType("application/vnd.tasks+json", { title: "Structured suffix", completed: false }),
      { title: "Structured suffix", completed: false },
    ),
    created(
      "POST accepts a JSON media type in any letter case",
      withType("Application/JSON", { title: "Letter case", completed: true }),
      { title: "Letter case", completed: true },
    ),
    created(
      "POST accepts a body of exactly MAX_BODY_BYTES bytes",
      {
        method: "POST",
        path: "/tasks",
        headers: JSON_TYPE,
        body: padded({ title: "At the limit", completed: false }, maxBodyBytes),
      },
      { title: "At the limit", completed: false },
    ),
  ];
}

function contentTypeCases(): TableCase[] {
  const valid = JSON.stringify({ title: "Wrong type", completed: false });
  return [
    ["text/plain", valid],
    ["text/plain;charset=UTF-8", valid],
    ["application/x-www-form-urlencoded", "title=Form&completed=false"],
    ["multipart/form-data; boundary=x", valid],
    ["text/json", valid],
    ["application/jsonp", valid],
    ["text/plain", "{not json"],
  ].map(
    ([type, body]): TableCase => ({
      name: `POST with Content-Type ${type} and body ${body} returns 415 and adds nothing`,
      request: { method: "POST", path: "/tasks", headers: { "Content-Type": type ?? "" }, body: body ?? "" },
      status: 415,
      body: { error: {} },
    }),
  );
}

function invalidBodyCases(): TableCase[] {
  const bodies: [string, string | Uint8Array][] = [
    ["malformed JSON", '{"title": "Unfinished", "completed":'],
    ["an empty body", ""],
    ["a body of only whitespace", " \n\t "],
    ["bytes that are not UTF-8", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ["two JSON values", '{"title":"a","completed":true}{"title":"b","completed":true}'],
    ["a JSON array", "[]"],
    ["a JSON array of tasks", JSON.stringify([{ title: "In an array", completed: false }])],
    ["a JSON string", '"Buy milk"'],
    ["a JSON number", "42"],
    ["JSON null", "null"],
    ["JSON true", "true"],
  ];
  const cases = bodies.map(
    ([what, body]): TableCase => ({
      name: `POST with ${what} returns 400 and adds nothing`,
      request: { method: "POST", path: "/tasks", headers: JSON_TYPE, body },
      status: 400,
      body: { error: {} },
    }),
  );
  cases.push({
    name: "POST with an empty body and no Content-Type returns 400 and adds nothing",
    request: { method: "POST", path: "/tasks" },
    status: 400,
    body: { error: {} },
  });
  return cases;
}

function fieldCases(): TableCase[] {
  const missing: [string, unknown][] = [
    ["no title", { completed: false }],
    ["no completed", { title: "No status" }],
    ["neither field", {}],
    ["a null title", { title: null, completed: true }],
    ["a null completed", { title: "Null status", completed: null }],
    ["both null", { title: null, completed: null }],
    ["a wrongly typed title but no completed", { title: 5 }],
    ["fields only under __proto__", JSON.parse('{"__proto__": {"title": "Inherited", "completed": true}}')],
    ["fields in different letter case", { Title: "Capital", Completed: true }],
  ];
  const wrongType: [string, unknown, "title" | "completed"][] = [
    ["a number title", { title: 42, completed: false }, "title"],
    ["a boolean title", { title: true, completed: false }, "title"],
    ["an array title", { title: ["Milk"], completed: false }, "title"],
    ["an object title", { title: { text: "Milk" }, completed: false }, "title"],
    ['a string "true" completed', { title: "String status", completed: "true" }, "completed"],
    ['a string "false" completed', { title: "String status", completed: "false" }, "completed"],
    ["a number 1 completed", { title: "Number status", completed: 1 }, "completed"],
    ["a number 0 completed", { title: "Number status", completed: 0 }, "completed"],
    ["an array completed", { title: "Array status", completed: [] }, "completed"],
  ];
  return [
    ...missing.map(
      ([what, value]): TableCase => ({
        name: `POST with ${what} returns 400 "${MISSING_FIELD_MESSAGE}" and adds nothing`,
        request: { method: "POST", path: "/tasks", headers: JSON_TYPE, body: JSON.stringify(value) },
        status: 400,
        body: MISSING,
      }),
    ),
    {
      name: `POST /index.php with no completed returns 400 "${MISSING_FIELD_MESSAGE}" and adds nothing`,
      request: jsonPost("/index.php", { title: "Script path" }),
      status: 400,
      body: MISSING,
    },
    ...wrongType.map(
      ([what, value, field]): TableCase => ({
        name: `POST with ${what} returns 400 naming ${field} and adds nothing`,
        request: jsonPost("/tasks", value),
        status: 400,
        body: { error: { naming: field } },
      }),
    ),
  ];
}

function sizeCases(options: ConformanceOptions): TableCase[] {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const over = padded({ title: "Over the limit", completed: false }, limit + 1);
  return [
    {
      name: "POST with a body one byte over MAX_BODY_BYTES returns 413 and adds nothing",
      request: { method: "POST", path: "/tasks", headers: JSON_TYPE, body: over },
      status: 413,
      body: { error: {} },
    },
    {
      name: "POST with a chunked body over MAX_BODY_BYTES and no Content-Length returns 413 and adds nothing",
      request: { method: "POST", path: "/tasks", headers: JSON_TYPE, body: { streamed: over } },
      status: 413,
      body: { error: {} },
    },
    {
      name: "POST checks the body size before the Content-Type (413, not 415)",
      request: { method: "POST", path: "/tasks", headers: { "Content-Type": "text/plain" }, body: over },
      status: 413,
      body: { error: {} },
    },
    {
      name: "POST checks the body size before parsing it (413, not 400)",
      request: { method: "POST", path: "/tasks", headers: JSON_TYPE, body: { streamed: new Uint8Array(limit + 1) } },
      status: 413,
      body: { error: {} },
    },
  ];
}

function methodCases(options: ConformanceOptions): TableCase[] {
  const methods = ["PUT", "PATCH", "DELETE", "PROPFIND"];
  if (options.corsOrigins === undefined) methods.push("OPTIONS");
  return TASK_PATHS.flatMap((path) =>
    methods.map(
      (method): TableCase => ({
        name: `${method} ${path} returns 405 with Allow: GET, HEAD, POST and no body`,
        request: {
          method,
          path,
          ...(method === "OPTIONS"
            ? {}
            : { headers: JSON_TYPE, body: JSON.stringify({ title: method, completed: true }) }),
        },
        status: 405,
        headers: { Allow: "GET, HEAD, POST" },
        body: "empty",
      }),
    ),
  );
}

function openApiCases(options: ConformanceOptions): TableCase[] {
  const methods = ["POST", "PUT", "DELETE"];
  if (options.corsOrigins === undefined) methods.push("OPTIONS");
  return [
    {
      name: "GET /openapi.json returns 200 with the OpenAPI document of the contract",
      request: { method: "GET", path: "/openapi.json" },
      status: 200,
      body: "openapi",
    },
    {
      name: "GET /openapi.json ignores a query string",
      request: { method: "GET", path: "/openapi.json?format=yaml" },
      status: 200,
      body: "openapi",
    },
    {
      name: "HEAD /openapi.json returns 200 with no body",
      request: { method: "HEAD", path: "/openapi.json" },
      status: 200,
      body: "empty",
    },
    ...methods.map(
      (method): TableCase => ({
        name: `${method} /openapi.json returns 405 with Allow: GET, HEAD and no body`,
        request: { method, path: "/openapi.json" },
        status: 405,
        headers: { Allow: "GET, HEAD" },
        body: "empty",
      }),
    ),
  ];
}

function homePageCases(options: ConformanceOptions): TableCase[] {
  const methods = ["POST", "PUT", "DELETE"];
  if (options.corsOrigins === undefined) methods.push("OPTIONS");
  const pageHeaders = { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" };
  return [
    {
      name: "GET / returns 200 with the home page as HTML, under a policy that allows no other origin",
      request: { method: "GET", path: "/" },
      status: 200,
      headers: pageHeaders,
      body: "page",
    },
    {
      name: "GET / ignores a query string",
      request: { method: "GET", path: "/?tab=2" },
      status: 200,
      headers: pageHeaders,
      body: "page",
    },
    {
      name: "HEAD / returns 200 with no body",
      request: { method: "HEAD", path: "/" },
      status: 200,
      headers: pageHeaders,
      body: "empty",
    },
    ...methods.map(
      (method): TableCase => ({
        name: `${method} / returns 405 with Allow: GET, HEAD and no body`,
        request: { method, path: "/" },
        status: 405,
        headers: { Allow: "GET, HEAD" },
        body: "empty",
      }),
    ),
  ];
}

function notFoundCases(options: ConformanceOptions): TableCase[] {
  const paths = [
    "/tasks/",
    "/tasks/007",
    "/tasks/0",
    "/tasks/abc",
    "/index.php/1",
    "/index.php/tasks",
    "/task",
    "/Tasks",
    "/index.html",
    "/openapi.yaml",
  ];
  const cases = paths.map(
    (path): TableCase => ({
      name: `GET ${path} returns 404 "Not found"`,
      request: { method: "GET", path },
      status: 404,
      body: NOT_FOUND,
    }),
  );
  cases.push(
    {
      name: "POST /tasks/007 returns 404 and adds nothing",
      request: jsonPost("/tasks/007", { title: "Wrong path", completed: false }),
      status: 404,
      body: NOT_FOUND,
    },
    {
      name: "DELETE /tasks/007 returns 404",
      request: { method: "DELETE", path: "/tasks/007" },
      status: 404,
      body: NOT_FOUND,
    },
  );
  if (options.basePath !== undefined && options.basePath !== "") {
    for (const path of [...TASK_PATHS, "/openapi.json", "/"]) {
      cases.push({
        name: `GET ${path} outside the base path returns 404`,
        request: { method: "GET", path, outsideBasePath: true },
        status: 404,
        body: NOT_FOUND,
      });
    }
    cases.push({
      name: "POST /tasks outside the base path returns 404 and adds nothing",
      request: { ...jsonPost("/tasks", { title: "Outside", completed: false }), outsideBasePath: true },
      status: 404,
      body: NOT_FOUND,
    });
  }
  return cases;
}

function withType(type: string, value: unknown): RequestSpec {
  return { method: "POST", path: "/tasks", headers: { "Content-Type": type }, body: JSON.stringify(value) };
}

/** `value` as JSON followed by spaces, `size` bytes in all (JSON allows trailing whitespace). */
function padded(value: unknown, size: number): Uint8Array {
  const json = encoder.encode(JSON.stringify(value));
  if (json.byteLength > size) throw new Error(`MAX_BODY_BYTES ${size} is too small for a task body`);
  const body = new Uint8Array(size).fill(0x20);
  body.set(json);
  return body;
}
