import { NO_TOKEN_MESSAGE, READ_ONLY_MESSAGE } from "./access.ts";
import type { AppConfig } from "./config.ts";
import { MISSING_FIELD_MESSAGE, STORE_UNAVAILABLE_MESSAGE } from "./errors.ts";
import { INITIAL_TASKS } from "./store/store.ts";

/** Methods that every path answers with 405 besides the ones it documents. */
const OTHER_METHODS = ["put", "delete", "patch", "trace"] as const;

const json = (schema: object, example?: unknown) => ({
  "application/json": example === undefined ? { schema } : { schema, example },
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * The OpenAPI 3.1 document of the service exactly as CONTRACT.md defines it, for this
 * configuration (its base path, body limit, list limit and CORS setting).
 */
export function openApiDocument(config: AppConfig): object {
  const readGuarded = config.readTokens.length > 0;
  const writeGuarded = config.writeTokens.length > 0;
  const guarded = readGuarded || writeGuarded;
  // What a route needs when tokens guard it: the bearer scheme, and the 401 (and 403) it may answer.
  const access = (needed: boolean, forbidden: boolean) =>
    needed
      ? {
          security: [{ bearerToken: [] }],
          responses: {
            "401": response("Unauthorized"),
            ...(forbidden ? { "403": errorResponse("The token may only read the list", READ_ONLY_MESSAGE) } : {}),
          },
        }
      : { responses: {} };
  const readAccess = access(readGuarded, false);
  const writeAccess = access(writeGuarded, readGuarded);
  const security = (guard: ReturnType<typeof access>) => ("security" in guard ? { security: guard.security } : {});
  const methodNotAllowed = (allow: string) => ({
    description: `Method not allowed. Allow: ${allow}`,
    responses: { "405": response(allow === "GET, HEAD" ? "MethodNotAllowedDocument" : "MethodNotAllowed") },
  });
  const options =
    config.corsOrigins === undefined
      ? methodNotAllowed("GET, HEAD, POST")
      : {
          description: "CORS preflight",
          responses: { "204": { description: "Preflight answered; Access-Control-* headers tell what is allowed" } },
        };
  const taskPath = {
    get: {
      operationId: "listTasks",
      summary: "Read the whole list, in insertion order",
      ...security(readAccess),
      parameters: [{ $ref: "#/components/parameters/IfNoneMatch" }],
      responses: {
        ...readAccess.responses,
        "200": {
          description: "The list",
          headers: { ETag: header("ETag"), "Cache-Control": header("CacheControl") },
          content: json({ type: "array", items: ref("Task") }, INITIAL_TASKS),
        },
        "304": response("NotModified"),
        "500": response("InternalError"),
        "503": response("StoreUnavailable"),
      },
    },
    head: {
      operationId: "headTasks",
      summary: "What GET answers, without the body",
      ...security(readAccess),
      parameters: [{ $ref: "#/components/parameters/IfNoneMatch" }],
      responses: {
        ...(readGuarded ? { "401": response("UnauthorizedNoBody") } : {}),
        "200": {
          description: "The list's headers",
          headers: { ETag: header("ETag"), "Cache-Control": header("CacheControl") },
        },
        "304": response("NotModified"),
        "500": response("InternalError"),
        "503": response("StoreUnavailable"),
      },
    },
    post: {
      operationId: "createTask",
      summary: "Append a task; its id is the last task's id plus 1",
      ...security(writeAccess),
      requestBody: {
        required: true,
        description: `At most ${config.maxBodyBytes} bytes. A missing Content-Type is read as JSON. Fields other than title and completed (id included) are ignored.`,
        content: json(ref("NewTask"), { title: "Write the README", completed: false }),
      },
      responses: {
        ...writeAccess.responses,
        "200": {
          description: "The created task",
          content: json(ref("Task"), { id: 3, title: "Write the README", completed: false }),
        },
        "400": errorResponse(
          "The body is not valid JSON, not an object, or a field is missing or of the wrong type",
          MISSING_FIELD_MESSAGE,
        ),
        "413": errorResponse(
          "The body is larger than the limit",
          `Request body must be at most ${config.maxBodyBytes} bytes`,
        ),
        "415": errorResponse("Content-Type is present and not JSON", "Content-Type must be application/json"),
        "507": {
          description: `The list is full: it holds MAX_TASKS (${config.maxTasks}) tasks, or the task would take its JSON past MAX_LIST_BYTES (${config.maxListBytes} bytes)`,
          content: {
            "application/json": {
              schema: ref("Error"),
              examples: {
                tasks: { value: { message: `Task list is full: it holds the maximum of ${config.maxTasks} tasks` } },
                bytes: {
                  value: {
                    message: `Task list is full: this task would take the list past its limit of ${config.maxListBytes} bytes`,
                  },
                },
              },
            },
          },
        },
        "500": response("InternalError"),
        "503": response("StoreUnavailable"),
      },
    },
    options,
    ...Object.fromEntries(OTHER_METHODS.map((method) => [method, methodNotAllowed("GET, HEAD, POST")])),
  };
  const documentPath = {
    get: {
      operationId: "getOpenApiDocument",
      summary: "This document",
      parameters: [{ $ref: "#/components/parameters/IfNoneMatch" }],
      responses: {
        "200": {
          description: "The OpenAPI document",
          headers: { ETag: header("ETag") },
          content: json({ type: "object" }),
        },
        "304": response("NotModified"),
      },
    },
    head: {
      operationId: "headOpenApiDocument",
      summary: "What GET answers, without the body",
      responses: {
        "200": { description: "The document's headers", headers: { ETag: header("ETag") } },
        "304": response("NotModified"),
      },
    },
    ...Object.fromEntries(
      [...OTHER_METHODS, "post", "options"].map((method) => [method, methodNotAllowed("GET, HEAD")]),
    ),
  };
  const pageHeaders = {
    ETag: header("ETag"),
    "Cache-Control": header("CacheControl"),
    "Content-Security-Policy": header("ContentSecurityPolicy"),
  };
  const homePath = {
    get: {
      operationId: "getHomePage",
      summary: "The home page for people: the list, kept current while open, and a form to add a task",
      parameters: [{ $ref: "#/components/parameters/IfNoneMatch" }],
      responses: {
        "200": {
          description: "The page",
          headers: pageHeaders,
          content: { "text/html": { schema: { type: "string" } } },
        },
        "304": response("NotModified"),
      },
    },
    head: {
      operationId: "headHomePage",
      summary: "What GET answers, without the body",
      parameters: [{ $ref: "#/components/parameters/IfNoneMatch" }],
      responses: {
        "200": { description: "The page's headers", headers: pageHeaders },
        "304": response("NotModified"),
      },
    },
    ...Object.fromEntries(
      [...OTHER_METHODS, "post", "options"].map((method) => [method, methodNotAllowed("GET, HEAD")]),
    ),
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Task list service",
      version: "1.0.0",
      description:
        "An ordered, append-only list of tasks. /tasks and /index.php serve the same list; / is a page for people that shows it. Any other path answers 404 with an Error body.",
    },
    servers: [{ url: config.basePath === "" ? "/" : config.basePath }],
    paths: { "/tasks": taskPath, "/index.php": taskPath, "/openapi.json": documentPath, "/": homePath },
    components: {
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
          properties: {
            id: { type: "integer", minimum: 1 },
            title: { type: "string" },
            completed: { type: "boolean" },
          },
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
          example: { message: MISSING_FIELD_MESSAGE },
        },
      },
      parameters: {
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
        NotModified: {
          description: "The client's copy is current; no body",
          headers: { ETag: header("ETag") },
        },
        MethodNotAllowed: {
          description: "Method not allowed; no body",
          headers: { Allow: allowHeader("GET, HEAD, POST") },
        },
        MethodNotAllowedDocument: {
          description: "Method not allowed; no body",
          headers: { Allow: allowHeader("GET, HEAD") },
        },
        NotFound: { description: "No such path", content: json(ref("Error"), { message: "Not found" }) },
        ...(guarded
          ? {
              Unauthorized: {
                description: "No bearer token, or one the service does not know",
                headers: { "WWW-Authenticate": challengeHeader() },
                content: json(ref("Error"), { message: NO_TOKEN_MESSAGE }),
              },
              UnauthorizedNoBody: {
                description: "No bearer token, or one the service does not know; no body",
                headers: { "WWW-Authenticate": challengeHeader() },
              },
            }
          : {}),
        InternalError: {
          description: "Something unexpected failed; the detail is in the log",
          content: json(ref("Error"), { message: "Internal server error" }),
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
          content: json(ref("Error"), { message: STORE_UNAVAILABLE_MESSAGE }),
        },
      },
    },
  };
}

function errorResponse(description: string, example: string) {
  return { description, content: json(ref("Error"), { message: example }) };
}

function challengeHeader() {
  return {
    description: 'Bearer realm="tasks", with error="invalid_token" when the token sent is not known',
    required: true,
    schema: { type: "string", pattern: '^Bearer realm="tasks"' },
  };
}

function allowHeader(methods: string) {
  return { description: "The methods the path answers", required: true, schema: { const: methods } };
}
