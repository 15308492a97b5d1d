import { type Context, Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { accessGuards } from "./access.ts";
import { type AppConfig, listLimits } from "./config.ts";
import { apiError } from "./errors.ts";
import { type HomePage, homePage } from "./home.ts";
import { toNewTask } from "./new-task.ts";
import { openApiDocument } from "./openapi.ts";
import { parseJson, readBody, requireJsonContentType } from "./request-body.ts";
import {
  answer,
  answerError,
  type DutyEnv,
  type DutyHandler,
  type DutyOptions,
  jsonAnswer,
  requestDuties,
} from "./request-duties.ts";
import { type LogSink, requestLogger } from "./request-log.ts";
import { isKnown, type ListBody, type ListRead, type TaskStore, taskJson } from "./store/store.ts";

/** The two paths that serve the same list. */
export const TASK_PATHS = ["/tasks", "/index.php"];
const DOCUMENT_PATH = "/openapi.json";
const JSON_TYPE = "application/json";
const HTML_TYPE = "text/html; charset=utf-8";
/** Methods in the order `Allow` lists them. */
const METHOD_ORDER = ["GET", "HEAD", "POST"];

/** What the app is built from: where the list lives, the validated configuration, and where logs go. */
export interface AppOptions {
  readonly store: TaskStore;
  readonly config: AppConfig;
  readonly logSink?: LogSink;
  /** How answers are made on this runtime. */
  readonly duties?: DutyOptions;
}

/** The task list app, as {@link createApp} builds it. */
export type TaskApp = Hono<DutyEnv>;

/** Builds the task list app. It uses only Web-standard APIs, so every runtime serves it as it is. */
export function createApp({ store, config, logSink = console, duties: dutyOptions }: AppOptions): TaskApp {
  // The 404 and error handlers sit on the root, so that requests outside the base path get request
  // ids, logs and headers too; the routes sit under the base path.
  const root = new Hono<DutyEnv>();
  const app = root.basePath(config.basePath);
  const secrets = [...config.readTokens, ...config.writeTokens];
  const log = config.logLevel === "off" ? undefined : requestLogger(config.logLevel, logSink, secrets);
  const duties = requestDuties(log, dutyOptions);
  const guards = accessGuards(config.readTokens, config.writeTokens);
  const withCors =
    config.corsOrigins === undefined
      ? undefined
      : cors({
          origin: config.corsOrigins === "*" ? "*" : [...config.corsOrigins],
          allowMethods: ["GET", "HEAD", "POST"],
          // Preflights allow the headers they ask for, Authorization among them.
          exposeHeaders: ["ETag", "X-Request-Id", "WWW-Authenticate"],
          maxAge: 86_400,
        });

  /**
   * Serves `method` on `paths` with `handler` behind the optional middleware: a route with none is
   * one wrapped handler, Hono's fastest path; one with CORS or a token guard runs the duties first.
   */
  const route = (
    method: string,
    paths: string[],
    middleware: (MiddlewareHandler<DutyEnv> | undefined)[],
    handler: DutyHandler,
  ): void => {
    const chain = middleware.filter((step) => step !== undefined);
    if (chain.length === 0) app.on(method, paths, duties.wrap(handler));
    else app.on(method, paths, duties.middleware, ...chain, handler);
  };

  route("GET", TASK_PATHS, [withCors, guards.read], (c) => {
    const read = store.read(parseIfNoneMatch(c.req.header("If-None-Match")));
    return read instanceof Promise ? read.then((list) => listAnswer(c, list)) : listAnswer(c, read);
  });

  const limits = listLimits(config);
  const fullMessage = {
    tasks: `Task list is full: it holds the maximum of ${config.maxTasks} tasks`,
    bytes: `Task list is full: this task would take the list past its limit of ${config.maxListBytes} bytes`,
  };
  route("POST", TASK_PATHS, [withCors, guards.write], async (c) => {
    const body = await readBody(c.req.raw, config.maxBodyBytes);
    requireJsonContentType(c.req.header("Content-Type"));
    const result = await store.append(toNewTask(parseJson(body)), limits);
    if ("full" in result) throw apiError(507, fullMessage[result.full]);
    return jsonAnswer(c, 200, result.text ?? taskJson(result.task));
  });

  const document = new TextEncoder().encode(JSON.stringify(openApiDocument(config))) as Uint8Array<ArrayBuffer>;
  const documentTag = fnv1a(document);
  route("GET", [DOCUMENT_PATH], [withCors], (c) => {
    const known = isKnown(documentTag, parseIfNoneMatch(c.req.header("If-None-Match")));
    return conditional(c, documentTag, known ? undefined : { parts: [document], byteLength: document.byteLength }, {});
  });

  // The home page is the base path itself, with or without its trailing slash; it is for people,
  // so it has no CORS.
  const page = homePage();
  const pageAnswer = (c: Context<DutyEnv>, { version, body, policy }: HomePage) => {
    const known = isKnown(version, parseIfNoneMatch(c.req.header("If-None-Match")));
    const headers = { "Cache-Control": "no-cache", "Content-Security-Policy": policy };
    return conditional(c, version, known ? undefined : body, headers, HTML_TYPE);
  };
  const homePaths = config.basePath === "" ? ["/"] : [config.basePath, `${config.basePath}/`];
  root.on(
    "GET",
    homePaths,
    duties.wrap((c) => {
      const built = page();
      return built instanceof Promise ? built.then((done) => pageAnswer(c, done)) : pageAnswer(c, built);
    }),
  );

  // With CORS on, Hono's CORS middleware answers every OPTIONS itself, with 204.
  if (withCors !== undefined) app.on("OPTIONS", [...TASK_PATHS, DOCUMENT_PATH], duties.middleware, withCors);

  // A path the app serves, asked with a method it does not serve, answers 405 with the methods it does.
  let allowed: Map<string, string> | undefined;
  root.notFound(
    duties.wrap((c) => {
      allowed ??= allowedMethods(root.routes);
      const allow = allowed.get(c.req.path);
      if (allow !== undefined) return answer(c, 405, null, { Allow: allow });
      return jsonAnswer(c, 404, JSON.stringify({ message: "Not found" }));
    }),
  );
  root.onError(answerError);

  return root;
}

/** The list's answer: 200 with its JSON, or 304 when the client holds the current version. */
function listAnswer(c: Context<DutyEnv>, { version, body }: ListRead): Response {
  return conditional(c, version, body, { "Cache-Control": "no-cache" });
}

/** Answers 200 with `body` and its tag, or 304 with only the tag when the client has it (`body` undefined). */
function conditional(
  c: Context<DutyEnv>,
  version: string,
  body: ListBody | undefined,
  headers: Record<string, string>,
  contentType = JSON_TYPE,
): Response {
  headers.ETag = `"${version}"`;
  if (body === undefined) return answer(c, 304, null, headers);
  headers["Content-Type"] = contentType;
  const sent = body.text !== undefined && c.get("duty").text ? body.text : bodyOf(body);
  return answer(c, 200, sent, headers, body.byteLength);
}

/** A list body as a response body: its one part as it is, or a stream of its parts, never copied. */
function bodyOf({ parts }: ListBody): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  const [only] = parts;
  if (parts.length === 1 && only !== undefined) return only;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
  });
}

/** Each served path's `Allow` value, from the app's routes: GET brings HEAD, and OPTIONS (CORS) is left out. */
function allowedMethods(routes: readonly { path: string; method: string }[]): Map<string, string> {
  const methods = new Map<string, Set<string>>();
  for (const { path, method } of routes) {
    if (!METHOD_ORDER.includes(method)) continue;
    const set = methods.get(path) ?? new Set();
    set.add(method);
    if (method === "GET") set.add("HEAD");
    methods.set(path, set);
  }
  return new Map([...methods].map(([path, set]) => [path, METHOD_ORDER.filter((m) => set.has(m)).join(", ")]));
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
