// The OpenAPI 3.1 document of the contract, for one configuration: its paths, each built by a
// small function, and the parts they share. Messages come from messages.ts, as the answers' do.
import type { AppConfig } from "../config.ts";
import { INITIAL_TASKS } from "../list/task.ts";
import {
  badCursor,
  bodyTooLarge,
  fullOfBytes,
  fullOfTasks,
  INTERNAL_ERROR,
  KEY_IN_PROGRESS,
  KEY_REUSED,
  MISSING_FIELD,
  NO_TOKEN,
  NOT_FOUND,
  NOT_JSON_TYPE,
  READ_ONLY,
  STORE_UNAVAILABLE,
  TOO_MANY_SUBSCRIBERS,
} from "../messages.ts";

type Json = Record<string, unknown>;

/** Methods that every path answers with 405 besides the ones it documents. */
const OTHER_METHODS = ["put", "delete", "patch", "trace"] as const;

const json = (schema: object, example?: unknown) => ({
  "application/json": example === undefined ? { schema } : { schema, example },
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const IF_NONE_MATCH = { $ref: "#/components/parameters/IfNoneMatch" };
const AFTER = { $ref: "#/components/parameters/After" };
const LAST_EVENT_ID = { $ref: "#/components/parameters/LastEventId" };
const IDEMPOTENCY_KEY = { $ref: "#/components/parameters/IdempotencyKey" };

/** The OpenAPI document of the service exactly as CONTRACT.md defines it, for this configuration. */
export function openApiDocument(config: AppConfig): Json {
  const taskPath = taskOperations(config);
  return {
    openapi: "3.1.0",
    info: {
      title: "Task list service",
      version: "1.0.0",
      description:
        "An ordered, append-only list of tasks. /tasks and /index.php serve the same list; / is a page for people that shows it. Any other path answers 404 with an Error body.",
    },
    servers: [{ url: config.basePath === "" ? "/" : config.basePath }],
    paths: {
      "/tasks": taskPath,
      "/index.php": taskPath,
      "/tasks/events": eventOperations(config),
      "/openapi.json": readOnlyOperations(
        "OpenApiDocument",
        "This document",
        { ETag: header("ETag") },
        json({ type: "object" }),
      ),
      "/": readOnlyOperations(
        "HomePage",
        "The home page for people: the list, kept current while open, and a form to add a task",
        {
          ETag: header("ETag"),
          "Cache-Control": header("CacheControl"),
          "Content-Security-Policy": header("ContentSecurityPolicy"),
        },
        { "text/html": { schema: { type: "string" } } },
      ),
    },
    components: components(config),
  };
}

/** What guarded routes declare when tokens are set: the bearer scheme, and the 401 (and 403) they may answer. */
function access(config: AppConfig, route: "read" | "write"): { security?: Json[]; responses: Json } {
  const guarded = route === "read" ? config.readTokens.length > 0 : config.writeTokens.length > 0;
  if (!guarded) return { responses: {} };
  const forbidden = route === "write" && config.readTokens.length > 0;
  return {
    security: [{ bearerToken: [] }],
    responses: {
      "401": response("Unauthorized"),
      ...(forbidden ? { "403": errorResponse("The token may only read the list", READ_ONLY) } : {}),
    },
  };
}

/** GET, HEAD, POST and the rest of the list's paths. */
function taskOperations(config: AppConfig): Json {
  const read = access(config, "read");
  const write = access(config, "write");
  const listHeaders = { ETag: header("ETag"), "Cache-Control": header("CacheControl") };
  const readFailures = {
    "304": response("NotModified"),
    "400": errorResponse("`after` is not a whole number of at most 15 digits", badCursor("after")),
    "500": response("InternalError"),
    "503": response("StoreUnavailable"),
  };
  return {
    get: {
      operationId: "listTasks",
      summary: "Read the whole list in insertion order, or with `after` only the tasks after an id",
      ...(read.security === undefined ? {} : { security: read.security }),
      parameters: [IF_NONE_MATCH, AFTER],
      responses: {
        ...read.responses,
        "200": {
          description: "The list",
          headers: listHeaders,
          content: json({ type: "array", items: ref("Task") }, INITIAL_TASKS),
        },
        ...readFailures,
      },
    },
    head: {
      operationId: "headTasks",
      summary: "What GET answers, without the body",
      ...(read.security === undefined ? {} : { security: read.security }),
      parameters: [IF_NONE_MATCH, AFTER],
      responses: {
        ...(read.security === undefined ? {} : { "401": response("UnauthorizedNoBody") }),
        "200": { description: "The list's headers", headers: listHeaders },
        ...readFailures,
        "400": { description: "`after` is not a whole number of at most 15 digits; no body" },
      },
    },
    post: {
      operationId: "createTask",
      summary: "Append a task; its id is the last task's id plus 1",
      description:
        "With an Idempotency-Key the task is added once: the same request again answers the same task with Idempotent-Replayed: true, whatever happened between, even once the list is full. The key is remembered with the task in the same atomic step, for at least 24 hours unless MAX_IDEMPOTENCY_KEYS newer keys push it out; with write tokens, each token has keys of its own. A request that fails remembers nothing.",
      ...(write.security === undefined ? {} : { security: write.security }),
      parameters: [IDEMPOTENCY_KEY],
      requestBody: {
        required: true,
        description: `At most ${config.maxBodyBytes} bytes. A missing Content-Type is read as JSON. Fields other than title and completed (id included) are ignored.`,
        content: json(ref("NewTask"), { title: "Write the README", completed: false }),
      },
      responses: {
        ...write.responses,
        "200": {
          description: "The created task, or with Idempotent-Replayed the task this key created before",
          headers: { "Idempotent-Replayed": header("IdempotentReplayed") },
          content: json(ref("Task"), { id: 3, title: "Write the README", completed: false }),
        },
        "409": errorResponse("A request with this Idempotency-Key is still being answered", KEY_IN_PROGRESS),
        "422": errorResponse("This Idempotency-Key came before with another title or completed", KEY_REUSED),
        "400": errorResponse(
          "The Idempotency-Key is malformed, or the body is not valid JSON, not an object, or a field is missing or of the wrong type",
          MISSING_FIELD,
        ),
        "413": errorResponse("The body is larger than the limit", bodyTooLarge(config.maxBodyBytes)),
        "415": errorResponse("Content-Type is present and not JSON", NOT_JSON_TYPE),
        "507": {
          description: `The list is full: it holds MAX_TASKS (${config.maxTasks}) tasks, or the task would take its JSON past MAX_LIST_BYTES (${config.maxListBytes} bytes)`,
          content: {
            "application/json": {
              schema: ref("Error"),
              examples: {
                tasks: { value: { message: fullOfTasks(config.maxTasks) } },
                bytes: { value: { message: fullOfBytes(config.maxListBytes) } },
              },
            },
          },
        },
        "500": response("InternalError"),
        "503": response("StoreUnavailable"),
      },
    },
    options:
      config.corsOrigins === undefined
        ? methodNotAllowed("GET, HEAD, POST")
        : {
            description: "CORS preflight",
            responses: { "204": { description: "Preflight answered; Access-Control-* headers tell what is allowed" } },
          },
    ...Object.fromEntries(OTHER_METHODS.map((method) => [method, methodNotAllowed("GET, HEAD, POST")])),
  };
}

/** The list's changes: Server-Sent Events, or with `Upgrade: websocket` one text message per task. */
function eventOperations(config: AppConfig): Json {
  const read = access(config, "read");
  const streamHeaders = { "Cache-Control": header("CacheControl") };
  const cursor = [LAST_EVENT_ID, AFTER];
  const description =
    "Each task is one event: `id: <task id>`, `event: task`, `data: <the task's JSON exactly as GET serves it>`. The stream sends every task after the cursor (Last-Event-ID, else `after`, else 0) in id order, then each task appended later, once, in id order. A comment line keeps a quiet stream open every 15 s. A subscriber that stops reading is cut off once 1 MiB of new tasks wait for it; it comes back with its cursor and misses nothing.";
  return {
    get: {
      operationId: "followTasks",
      summary: "Follow the list's changes from a cursor",
      description: `${description} With \`Upgrade: websocket\` the same tasks come as WebSocket text messages, one per task, each the task's JSON.`,
      ...(read.security === undefined ? {} : { security: read.security }),
      parameters: cursor,
      responses: {
        ...read.responses,
        "101": { description: "Switching to a WebSocket that carries one text message per task" },
        "200": {
          description: "The event stream; it stays open",
          headers: streamHeaders,
          content: { "text/event-stream": { schema: { type: "string" } } },
        },
        "400": errorResponse(
          "The cursor is not a whole number of at most 15 digits, or a WebSocket handshake lacks what RFC 6455 asks",
          badCursor("after"),
        ),
        "500": response("InternalError"),
        "503": {
          ...response("StoreUnavailable"),
          description: `MAX_SUBSCRIBERS (${config.maxSubscribers}) follow the list already ("${TOO_MANY_SUBSCRIBERS}"), the server is stopping, or the store cannot be reached: try again after Retry-After`,
        },
      },
    },
    head: {
      operationId: "headTaskEvents",
      summary: "What GET answers, without the body; nothing is followed",
      ...(read.security === undefined ? {} : { security: read.security }),
      parameters: cursor,
      responses: {
        ...(read.security === undefined ? {} : { "401": response("UnauthorizedNoBody") }),
        "200": {
          description: "The stream's headers",
          headers: { ...streamHeaders, "Content-Type": header("EventStream") },
        },
        "400": { description: "The cursor is not a whole number of at most 15 digits; no body" },
      },
    },
    options:
      config.corsOrigins === undefined
        ? methodNotAllowed("GET, HEAD")
        : {
            description: "CORS preflight",
            responses: { "204": { description: "Preflight answered; Access-Control-* headers tell what is allowed" } },
          },
    ...Object.fromEntries([...OTHER_METHODS, "post"].map((method) => [method, methodNotAllowed("GET, HEAD")])),
  };
}

/** GET and HEAD of a fixed resource (`name` in its operation ids), and 405 for every other method. */
function readOnlyOperations(name: string, summary: string, headers: Json, content: Json): Json {
  return {
    get: {
      operationId: `get${name}`,
      summary,
      parameters: [IF_NONE_MATCH],
      responses: { "200": { description: summary, headers, content }, "304": response("NotModified") },
    },
    head: {
      operationId: `head${name}`,
      summary: "What GET answers, without the body",
      parameters: [IF_NONE_MATCH],
      responses: { "200": { description: "The headers GET answers", headers }, "304": response("NotModified") },
    },
    ...Object.fromEntries(
      [...OTHER_METHODS, "post", "options"].map((method) => [method, methodNotAllowed("GET, HEAD")]),
    ),
  };
}

function methodNotAllowed(allow: "GET, HEAD" | "GET, HEAD, POST"): Json {
  return {
    description: `Method not allowed. Allow: ${allow}`,
    responses: { "405": response(allow === "GET, HEAD" ? "MethodNotAllowedDocument" : "MethodNotAllowed") },
  };
}

/** The schemas, parameters, headers and answers the paths refer to. */
function components(config: AppConfig): Json {
  const readGuarded = config.readTokens.length > 0;
  const writeGuarded = config.writeTokens.length > 0;
  const guarded = readGuarded || writeGuarded;
  return {
    ...(guarded
      ? {
          securitySchemes: {
            bearerToken: {
              type: "http",
              scheme: "bearer",
              description: `Authorization: Bearer <token>.${readGuarded ? " Reading needs a read or write token." : ""}${writeGuarded ? " Appending needs a write token." : ""}`,
            },
          },
        }
      : {}),
    schemas: {
      Task: {
        type: "object",
        properties: { id: { type: "integer", minimum: 1 }, title: { type: "string" }, completed: { type: "boolean" } },
        required: ["id", "title", "completed"],
        additionalProperties: false,
        example: INITIAL_TASKS[0],
      },
      NewTask: {
        type: "object",
        properties: { title: { type: "string" }, completed: { type: "boolean" } },
        required: ["title", "completed"],
      },
      Error: {
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"],
        additionalProperties: false,
        example: { message: MISSING_FIELD },
      },
    },
    parameters: {
      IdempotencyKey: {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: "1 to 255 visible ASCII characters, new for each task, such as a UUID; sent again with a retry",
        schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" },
      },
      After: {
        name: "after",
        in: "query",
        required: false,
        description: "The id of the last task the client has: only the tasks after it are sent",
        schema: { type: "string", pattern: "^[0-9]{1,15}$" },
      },
      LastEventId: {
        name: "Last-Event-ID",
        in: "header",
        required: false,
        description: "The id of the last event received, as EventSource sends it when it reconnects; wins over `after`",
        schema: { type: "string", pattern: "^[0-9]{1,15}$" },
      },
      IfNoneMatch: {
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "ETags the client holds; when one is current the answer is 304",
        schema: { type: "string" },
      },
    },
    headers: {
      ETag: {
        description: "Changes whenever the content changes",
        required: true,
        schema: { type: "string", pattern: '^"[^"]*"$' },
      },
      IdempotentReplayed: {
        description: "true when the answer is the task an earlier request with the same Idempotency-Key created",
        required: false,
        schema: { const: "true" },
      },
      EventStream: {
        description: "The stream's media type",
        required: true,
        schema: { const: "text/event-stream" },
      },
      CacheControl: {
        description: "Always no-cache: revalidate with If-None-Match",
        required: true,
        schema: { const: "no-cache" },
      },
      ContentSecurityPolicy: {
        description: "Allows the page's own inline script and style (by hash) and requests to its own origin only",
        required: true,
        schema: { type: "string" },
      },
    },
    responses: {
      NotModified: { description: "The client's copy is current; no body", headers: { ETag: header("ETag") } },
      MethodNotAllowed: {
        description: "Method not allowed; no body",
        headers: { Allow: allowHeader("GET, HEAD, POST") },
      },
      MethodNotAllowedDocument: {
        description: "Method not allowed; no body",
        headers: { Allow: allowHeader("GET, HEAD") },
      },
      NotFound: { description: "No such path", content: json(ref("Error"), { message: NOT_FOUND }) },
      ...(guarded
        ? {
            Unauthorized: {
              description: "No bearer token, or one the service does not know",
              headers: { "WWW-Authenticate": challengeHeader() },
              content: json(ref("Error"), { message: NO_TOKEN }),
            },
            UnauthorizedNoBody: {
              description: "No bearer token, or one the service does not know; no body",
              headers: { "WWW-Authenticate": challengeHeader() },
            },
          }
        : {}),
      InternalError: {
        description: "Something unexpected failed; the detail is in the log",
        content: json(ref("Error"), { message: INTERNAL_ERROR }),
      },
      StoreUnavailable: {
        description:
          "The store cannot be reached (a database down, a connection lost): try again after Retry-After seconds",
        headers: {
          "Retry-After": {
            description: "Seconds to wait before trying again",
            required: true,
            schema: { type: "string", pattern: "^[0-9]+$" },
          },
        },
        content: json(ref("Error"), { message: STORE_UNAVAILABLE }),
      },
    },
  };
}

function errorResponse(description: string, example: string): Json {
  return { description, content: json(ref("Error"), { message: example }) };
}

function challengeHeader(): Json {
  return {
    description: 'Bearer realm="tasks", with error="invalid_token" when the token sent is not known',
    required: true,
    schema: { type: "string", pattern: '^Bearer realm="tasks"' },
  };
}

function allowHeader(methods: string): Json {
  return { description: "The methods the path answers", required: true, schema: { const: methods } };
}
