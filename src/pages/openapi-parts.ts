// The parts of the OpenAPI document that operations share: schemas, parameters, headers and
// responses, and the small builders routes describe their operations with. Messages come from
// messages.ts, as the responses' do.
import type { AppConfig } from "../config.ts";
import { MAX_KEY_LABEL } from "../list/list-keys.ts";
import { INITIAL_TASKS, TASK_FIELDS, TITLE_FIELD } from "../list/task.ts";
import {
  INTERNAL_ERROR,
  KEY_NOT_FOR_LIST,
  MISSING_FIELD,
  NO_TOKEN,
  READ_ONLY,
  STORE_UNAVAILABLE,
} from "../messages.ts";

/** A JSON object of the document. */
export type Json = { readonly [key: string]: unknown };

/** The largest cursor: at most 15 digits. */
const MAX_CURSOR = 999_999_999_999_999;

/** A list key as the keys' routes show it; a new key's also has the key itself. */
const LIST_KEY_PROPERTIES = {
  id: { type: "string", pattern: "^[a-z2-7]{16}$" },
  access: { enum: ["read", "write"] },
  label: { type: "string" },
  expires: { type: ["string", "null"], format: "date-time" },
};

/** The document's tags, each route's operations under one, with what they group. */
export const TAGS = {
  lists: "The lists of this deployment: enumerate them, create, retitle and delete one",
  tasks: "The list and its tasks: read the list, add a task, read, change and delete one",
  events: "The list's changes as they take effect, as Server-Sent Events or WebSocket messages",
  keys: "The keys that share one list: make one, see them, revoke one",
  documents: "This document, and the home page for people",
} as const;
/** A tag of the document. */
export type Tag = keyof typeof TAGS;

const TITLE = TITLE_FIELD.schema;
/** A task's fields beside its id, as the schemas of a task, a new task and a patch list them. */
const FIELD_SCHEMAS = Object.fromEntries(TASK_FIELDS.map((field) => [field.name, field.schema]));
const FIELD_NAMES = TASK_FIELDS.map((field) => field.name);

/** A JSON media type with its schema and, when given, an example. */
export const json = (schema: Json, example?: unknown): Json => ({
  "application/json": example === undefined ? { schema } : { schema, example },
});
/** A reference to a schema of the components. */
export const schema = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
/** A reference to a response of the components. */
export const response = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
/** A reference to a header of the components. */
export const header = (name: string): Json => ({ $ref: `#/components/headers/${name}` });
/** A reference to a parameter of the components. */
export const parameter = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });

/** A response with an Error body, its example the message the service sends. */
export function errorResponse(description: string, example: string): Json {
  return { description, content: json(schema("Error"), { message: example }) };
}

/** The schemas, parameters, headers and responses operations may use; the document keeps those they do. */
export function components(config: AppConfig): Json {
  const readGuarded = config.readTokens.length > 0;
  const writeGuarded = config.writeTokens.length > 0;
  const challenge = {
    description: 'Bearer realm="tasks", with error="invalid_token" when the token sent is not known',
    required: true,
    schema: { type: "string", pattern: '^Bearer realm="tasks"' },
  };
  return {
    securitySchemes: {
      bearerToken: {
        type: "http",
        scheme: "bearer",
        description: `Authorization: Bearer <token>, a token of the deployment.${readGuarded ? " Reading needs a read or write token." : ""}${writeGuarded ? " Appending needs a write token." : ""}`,
      },
      listKey: {
        type: "http",
        scheme: "bearer",
        description:
          "Authorization: Bearer <key>, a key of the list the path names (the default list at /tasks, /tasks/{id}, /tasks/events and /index.php), made by POST /lists/{name}/keys. A read key reads and follows the list; a write key also changes its tasks. Anywhere else it is an unknown token.",
      },
    },
    schemas: {
      Task: {
        type: "object",
        properties: { id: { type: "integer", minimum: 1 }, ...FIELD_SCHEMAS },
        required: ["id", ...FIELD_NAMES],
        additionalProperties: false,
        examples: [INITIAL_TASKS[0]],
      },
      NewTask: {
        type: "object",
        properties: FIELD_SCHEMAS,
        required: FIELD_NAMES,
      },
      TaskPatch: {
        type: "object",
        description: "A JSON merge patch: the members present are applied, others (id included) ignored",
        properties: FIELD_SCHEMAS,
      },
      List: {
        type: "object",
        properties: {
          name: { type: "string", pattern: "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$" },
          title: { type: "string" },
        },
        required: ["name", "title"],
        additionalProperties: false,
        examples: [{ name: "default", title: "Tasks" }],
      },
      ListTitle: {
        type: "object",
        description: "A list's title: other members are ignored",
        properties: { title: { ...TITLE, maxLength: 200 } },
        required: ["title"],
      },
      ListPatch: {
        type: "object",
        description: "A JSON merge patch of the list: title when present, other members ignored",
        properties: { title: { ...TITLE, maxLength: 200 } },
      },
      NewListKey: {
        type: "object",
        properties: {
          access: { enum: ["read", "write"] },
          label: { type: "string", maxLength: MAX_KEY_LABEL, default: "" },
          expires: {
            type: ["string", "null"],
            format: "date-time",
            default: null,
            description: "When the key stops opening the list, in the future; null for never",
          },
        },
        required: ["access"],
        additionalProperties: false,
      },
      ListKey: {
        type: "object",
        properties: LIST_KEY_PROPERTIES,
        required: ["id", "access", "label", "expires"],
        additionalProperties: false,
      },
      CreatedListKey: {
        type: "object",
        properties: {
          ...LIST_KEY_PROPERTIES,
          key: { type: "string", pattern: "^lk_[A-Za-z0-9_-]{43}$", description: "Shown this once" },
        },
        required: ["id", "access", "label", "expires", "key"],
        additionalProperties: false,
      },
      Error: {
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"],
        additionalProperties: false,
        examples: [{ message: MISSING_FIELD }],
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
        description:
          "The id of the last task the client has: only the tasks after it are sent. Anything but a whole number of at most 15 digits gets 400",
        schema: { type: "integer", minimum: 0, maximum: MAX_CURSOR },
      },
      AfterChange: {
        name: "after",
        in: "query",
        required: false,
        description:
          "The change number the client's copy is at (a task's id while nothing was edited or deleted): only what changed after it is sent. Anything but a whole number of at most 15 digits gets 400, even beside a Last-Event-ID",
        schema: { type: "integer", minimum: 0, maximum: MAX_CURSOR },
      },
      LastEventId: {
        name: "Last-Event-ID",
        in: "header",
        required: false,
        description:
          "The change number of the last event received, as EventSource sends it when it reconnects; wins over `after`. Anything but a whole number of at most 15 digits gets 400",
        schema: { type: "integer", minimum: 0, maximum: MAX_CURSOR },
      },
      IfNoneMatch: {
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "ETags the client holds; when one is current the response is 304",
        schema: { type: "string" },
      },
    },
    headers: {
      ETag: {
        description: "Changes whenever the content changes",
        required: true,
        schema: { type: "string", pattern: '^"[^"]*"$' },
      },
      Location: {
        description: "The created list's path, under the base path",
        required: true,
        schema: { type: "string", pattern: "/lists/[a-z0-9-]+$" },
      },
      KeyLocation: {
        description: "The created key's path, under the base path",
        required: true,
        schema: { type: "string", pattern: "/lists/[a-z0-9-]+/keys/[a-z2-7]+$" },
      },
      NoStore: {
        description: "Always no-store: what tells who holds access is not kept by caches",
        required: true,
        schema: { const: "no-store" },
      },
      PageLocation: {
        description: "The list's page: its path under the base path, with a trailing slash",
        required: true,
        schema: { type: "string", pattern: "/lists/[a-z0-9-]+/$" },
      },
      VaryAccept: {
        description: "The answer depends on Accept: a browser gets another than an API client",
        required: true,
        schema: { const: "Accept" },
      },
      IdempotentReplayed: {
        description: "true when the response is the task an earlier request with the same Idempotency-Key created",
        required: false,
        schema: { const: "true" },
      },
      CacheControl: {
        description: "Always no-cache: revalidate with If-None-Match",
        required: true,
        schema: { const: "no-cache" },
      },
      AcceptPatch: {
        description: "The patch format PATCH takes",
        required: true,
        schema: { const: "application/merge-patch+json" },
      },
      ContentSecurityPolicy: {
        description: "Allows the page's own inline script and style (by hash) and requests to its own origin only",
        required: true,
        schema: { type: "string" },
      },
      RetryAfter: {
        description: "Seconds to wait before trying again",
        required: true,
        schema: { type: "string", pattern: "^[0-9]+$" },
      },
    },
    responses: {
      NotModified: { description: "The client's copy is current; no body", headers: { ETag: header("ETag") } },
      Unauthorized: {
        description: "No bearer token, or one the service does not know",
        headers: { "WWW-Authenticate": challenge },
        content: json(schema("Error"), { message: NO_TOKEN }),
      },
      ReadOnly: errorResponse("The token or list key may only read the list", READ_ONLY),
      KeyNotForList: errorResponse(
        "A list key, or a read token where READ_TOKENS is set: the list itself and its keys need a deployment write token",
        KEY_NOT_FOR_LIST,
      ),
      RefusedByRuntime: {
        description:
          "The service answers no 4xx here, but the runtime refuses a request it cannot take before the service sees it: 400 for a header it cannot parse, 431 or 414 for headers or a URL past its limits. The body, if any, is the runtime's own",
      },
      InternalError: {
        description: "Something unexpected failed; the detail is in the log",
        content: json(schema("Error"), { message: INTERNAL_ERROR }),
      },
      StoreUnavailable: {
        description:
          "The store cannot be reached (a database down, a connection lost): try again after Retry-After seconds",
        headers: { "Retry-After": header("RetryAfter") },
        content: json(schema("Error"), { message: STORE_UNAVAILABLE }),
      },
    },
  };
}
