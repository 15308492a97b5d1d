import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppConfig } from "./config.ts";
import { homePage, toHomePage } from "./home.ts";
import { toNewTask } from "./new-task.ts";
import { openApiDocument } from "./openapi.ts";
import { parseJson, readBody, requireJsonContentType } from "./request-body.ts";
import { type LogSink, requestLogger } from "./request-log.ts";
import { isKnown, type TaskStore, taskJson } from "./store/store.ts";

/** The two paths that serve the same list. */
export const TASK_PATHS = ["/tasks", "/index.php"];
const DOCUMENT_PATH = "/openapi.json";
const JSON_TYPE = "application/json";
const encoder = new TextEncoder();
/** UTF-8 bytes of a text, typed as the fixed-size buffer a Response body takes. */
const encode = (text: string) => encoder.encode(text) as Uint8Array<ArrayBuffer>;

/** What the app is built from: where the list lives, the validated configuration, and where logs go. */
export interface AppOptions {
  readonly store: TaskStore;
  readonly config: AppConfig;
  readonly logSink?: LogSink;
}

/** Builds the task list app. It uses only Web-standard APIs, so every runtime serves it as it is. */
export function createApp({ store, config, logSink = console }: AppOptions): Hono {
  // Middleware and the 404 and error handlers sit on the root, so that requests outside the base
  // path get request ids, logs and headers too; the routes sit under the base path.
  const root = new Hono();
  const app = root.basePath(config.basePath);

  const logRequest = config.logLevel === "off" ? undefined : requestLogger(config.logLevel, logSink);
  root.use(requestId());
  // What every answer gets, in one layer: each middleware layer costs promises on every request.
  root.use(async (c, next) => {
    const start = performance.now();
    try {
      await next();
    } catch (error) {
      // Hono hands only Error instances to onError and lets any other thrown value escape as the
      // runtime's own 500, so such a value is answered here.
      c.error = error instanceof Error ? error : new Error(`Non-Error value thrown: ${String(error)}`);
      c.res = answerError(c.error, c);
    }
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    logRequest?.(c, start);
  });
  root.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) => new Response(null, { status: 405, headers: { Allow: methods.join(", ") } }),
    }),
  );
  if (config.corsOrigins !== undefined) {
    const origins = config.corsOrigins;
    const withCors = cors({
      origin: origins === "*" ? "*" : [...origins],
      allowMethods: ["GET", "HEAD", "POST"],
      exposeHeaders: ["ETag", "X-Request-Id"],
      maxAge: 86_400,
    });
    for (const path of [...TASK_PATHS, DOCUMENT_PATH]) app.use(path, withCors);
  }

  app.on("GET", TASK_PATHS, async (c) => {
    const { version, body } = await store.read(parseIfNoneMatch(c.req.header("If-None-Match")));
    return conditional(c, `"${version}"`, body, { "Cache-Control": "no-cache" });
  });

  app.on("POST", TASK_PATHS, async (c) => {
    const body = await readBody(c.req.raw, config.maxBodyBytes);
    requireJsonContentType(c.req.header("Content-Type"));
    const task = await store.append(toNewTask(parseJson(body)), config.maxTasks);
    if (task === undefined) {
      throw new HTTPException(507, { message: `Task list is full: it holds the maximum of ${config.maxTasks} tasks` });
    }
    return json(c, 200, taskJson(task));
  });

  const document = encode(JSON.stringify(openApiDocument(config)));
  const documentTag = `"${fnv1a(document)}"`;
  app.get(DOCUMENT_PATH, (c) => {
    const known = parseIfNoneMatch(c.req.header("If-None-Match"));
    return conditional(c, documentTag, isKnown(documentTag.slice(1, -1), known) ? undefined : document);
  });

  // The page lives at the base path with its trailing slash, where its relative URLs resolve under it.
  root.get(`${config.basePath}/`, homePage());
  if (config.basePath !== "") app.get("/", toHomePage(config.basePath));

  root.notFound((c) => json(c, 404, JSON.stringify({ message: "Not found" })));
  root.onError(answerError);

  return root;
}

/** The contract's answer to an error: its own status and message, or a bare 500 for anything unexpected. */
function answerError(error: Error, c: Context): Response {
  if (error instanceof HTTPException && error.status !== 500) {
    return json(c, error.status, JSON.stringify({ message: error.message }));
  }
  return json(c, 500, JSON.stringify({ message: "Internal server error" }));
}

/** Answers 200 with `body` and its tag, or 304 with only the tag when the client has it (`body` undefined). */
function conditional(
  c: Context,
  etag: string,
  body: Uint8Array<ArrayBuffer> | undefined,
  headers: Record<string, string> = {},
) {
  if (body === undefined) return c.body(null, 304, { ...headers, ETag: etag });
  return c.body(body, 200, {
    ...headers,
    ETag: etag,
    "Content-Type": JSON_TYPE,
    "Content-Length": String(body.byteLength),
  });
}

function json(c: Context, status: ContentfulStatusCode, text: string): Response {
  const bytes = encode(text);
  return c.body(bytes, status, { "Content-Type": JSON_TYPE, "Content-Length": String(bytes.byteLength) });
}

/** The entity tags of an `If-None-Match` header, without quotes or weak markers; `*` stays `*`. */
function parseIfNoneMatch(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header.split(",").map((tag) =>
    tag
      .trim()
      .replace(/^W\//, "")
      .replace(/^"(.*)"$/, "$1"),
  );
}

/** A 32-bit FNV-1a hash in hex: enough to tell one build of the document from another. */
function fnv1a(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}
