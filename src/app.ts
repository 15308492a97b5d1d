// The task list app: every route, its handler inline after its path, over the store seam. It uses
// only Web-standard APIs, so every runtime serves it as it is.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { UpgradeWebSocket } from "hono/ws";
import { type AppConfig, listLimits } from "./config.ts";
import { apiError } from "./errors.ts";
import { accessGuards } from "./http/access.ts";
import { conditionalAnswer } from "./http/conditional.ts";
import { idempotencyKeyOf, rememberedKey, type Sha256 } from "./http/idempotency.ts";
import { toNewTask } from "./http/new-task.ts";
import { parseJson, readBody, requireJsonContentType } from "./http/request-body.ts";
import {
  answer,
  answerError,
  type DutyEnv,
  type DutyHandler,
  type DutyOptions,
  jsonAnswer,
  requestDuties,
} from "./http/request-duties.ts";
import { type LogSink, logEvent, requestLogger } from "./http/request-log.ts";
import type { ListVersion } from "./list/encoded-list.ts";
import { type ListUsage, overLimitWarning } from "./list/limits.ts";
import { parseCursor } from "./live/cursor.ts";
import { subscription } from "./live/subscribe.ts";
import { fullOfBytes, fullOfTasks, KEY_REUSED, NOT_FOUND } from "./messages.ts";
import { homePage } from "./pages/home.ts";
import { openApiDocument } from "./pages/openapi.ts";
import type { TaskStore } from "./store/store.ts";

/** The two paths that serve the same list. */
export const TASK_PATHS = ["/tasks", "/index.php"];
/** Where the list's changes are followed: Server-Sent Events, or a WebSocket. */
export const EVENTS_PATH = "/tasks/events";
const DOCUMENT_PATH = "/openapi.json";
const HTML_TYPE = "text/html; charset=utf-8";
/** Methods in the order `Allow` lists them. */
const METHOD_ORDER = ["GET", "HEAD", "POST"];

/** What the app is built from: where the list lives, the validated configuration, and where logs go. */
export interface AppOptions {
  readonly store: TaskStore;
  readonly config: AppConfig;
  readonly logSink?: LogSink;
  /**
   * Send fixed bodies as text rather than bytes: Node's HTTP server writes a text body in the same
   * write as the head, and bytes in a second one; Deno copies bytes into each Response, and takes
   * a string as it is. Other runtimes send bytes as they are.
   */
  readonly textBodies?: boolean;
  /** The request's headers as the runtime parsed them, when it keeps them so: see {@link DutyOptions}. */
  readonly parsedHeaders?: DutyOptions["parsedHeaders"];
  /** A synchronous SHA-256 for Idempotency-Keys, where the runtime has one; else Web Crypto's. */
  readonly sha256?: Sha256;
  /** The runtime's WebSocket upgrade (Hono's `upgradeWebSocket` for it); without one, events are SSE only. */
  readonly upgradeWebSocket?: UpgradeWebSocket;
  /**
   * Answers a WebSocket subscriber at `cursor` in place of the runtime's upgrade: for a store that
   * holds its subscribers itself (the Durable Object, which hibernates them), and counts them.
   */
  readonly openSocket?: (request: Request, cursor: number) => Response | Promise<Response>;
  /**
   * Aborts when the server is stopping: every subscription ends (streams finish, WebSockets close
   * with 1001), so subscribers come back with their cursor, and new ones answer 503 meanwhile.
   */
  readonly closing?: AbortSignal;
}

/** The task list app, as {@link createApp} builds it. */
export type TaskApp = Hono<DutyEnv>;

/** Builds the task list app. */
export function createApp({
  store,
  config,
  logSink = console,
  textBodies = false,
  parsedHeaders,
  sha256,
  upgradeWebSocket,
  openSocket,
  closing,
}: AppOptions): TaskApp {
  // The 404 and error handlers sit on the root, so that requests outside the base path get request
  // ids, logs and headers too; the routes sit under the base path.
  const root = new Hono<DutyEnv>();
  const app = root.basePath(config.basePath);
  const secrets = [...config.readTokens, ...config.writeTokens];
  const log = config.logLevel === "off" ? undefined : requestLogger(config.logLevel, logSink, secrets);
  const duties = requestDuties(log, { textBodies, parsedHeaders });
  const guards = accessGuards(config.readTokens, config.writeTokens);
  // A preflight names the methods its path answers: the list takes POST, the rest only reads.
  const corsFor = (allowMethods: string[]) =>
    config.corsOrigins === undefined
      ? undefined
      : cors({
          origin: config.corsOrigins === "*" ? "*" : [...config.corsOrigins],
          allowMethods,
          // Preflights allow the headers they ask for, Authorization and Idempotency-Key among them.
          exposeHeaders: ["ETag", "X-Request-Id", "WWW-Authenticate", "Idempotent-Replayed"],
          maxAge: 86_400,
        });
  const withCors = corsFor(["GET", "HEAD", "POST"]);
  const readCors = corsFor(["GET", "HEAD"]);
  const limits = listLimits(config);
  const checkLimits = limitCheck(config, logSink);
  const writeGuarded = config.writeTokens.length > 0;

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

  // `?after=N` asks for the tasks after id N only: the list's ETag still says whether anything changed.
  const listAnswer = (c: Context<DutyEnv>, list: ListVersion, after: number | undefined): Response => {
    checkLimits(list.usage);
    const body = after === undefined ? () => list.body() : () => list.after(after);
    return conditionalAnswer(c, list.version, body, { "Cache-Control": "no-cache" });
  };
  route("GET", TASK_PATHS, [withCors, guards.read], (c) => {
    const after = parseCursor(c.req.query("after"), "after");
    const list = store.read();
    return list instanceof Promise ? list.then((read) => listAnswer(c, read, after)) : listAnswer(c, list, after);
  });

  route(
    "GET",
    [EVENTS_PATH],
    [readCors, guards.read],
    subscription({ store, maxSubscribers: config.maxSubscribers, closing, upgradeWebSocket, openSocket }),
  );

  route("POST", TASK_PATHS, [withCors, guards.write], async (c) => {
    const key = idempotencyKeyOf(c);
    const body = await readBody(c, config.maxBodyBytes);
    requireJsonContentType(c.req.header("content-type"));
    const task = toNewTask(parseJson(body));
    const remembered = key === undefined ? undefined : await rememberedKey(c, key, task, writeGuarded, sha256);
    const result = await store.append(task, limits, remembered);
    checkLimits(result.usage);
    switch (result.outcome) {
      case "added":
        return jsonAnswer(c, 200, result.json);
      case "replayed":
        return jsonAnswer(c, 200, result.json, { "Idempotent-Replayed": "true" });
      case "key-reused":
        throw apiError(422, KEY_REUSED);
      case "full":
        throw apiError(507, result.limit === "tasks" ? fullOfTasks(limits.maxTasks) : fullOfBytes(limits.maxBytes));
    }
  });

  const document = new TextEncoder().encode(JSON.stringify(openApiDocument(config))) as Uint8Array<ArrayBuffer>;
  const documentBody = { parts: [document], byteLength: document.byteLength };
  const documentTag = fnv1a(document);
  route("GET", [DOCUMENT_PATH], [readCors], (c) => conditionalAnswer(c, documentTag, () => documentBody, {}));

  // The home page is the base path itself, with or without its trailing slash; it is for people,
  // so it has no CORS.
  const page = homePage();
  const homePaths = config.basePath === "" ? ["/"] : [config.basePath, `${config.basePath}/`];
  root.on(
    "GET",
    homePaths,
    duties.wrap((c) => {
      const built = page();
      const pageAnswer = ({ version, body, policy }: Awaited<typeof built>) =>
        conditionalAnswer(
          c,
          version,
          () => body,
          { "Cache-Control": "no-cache", "Content-Security-Policy": policy },
          HTML_TYPE,
        );
      return built instanceof Promise ? built.then(pageAnswer) : pageAnswer(built);
    }),
  );

  // With CORS on, Hono's CORS middleware answers every OPTIONS itself, with 204.
  if (withCors !== undefined && readCors !== undefined) {
    app.on("OPTIONS", TASK_PATHS, duties.middleware, withCors);
    app.on("OPTIONS", [EVENTS_PATH, DOCUMENT_PATH], duties.middleware, readCors);
  }

  // A path the app serves, asked with a method it does not serve, answers 405 with the methods it does.
  let allowed: Map<string, string> | undefined;
  root.notFound(
    duties.wrap((c) => {
      allowed ??= allowedMethods(root.routes);
      const allow = allowed.get(c.req.path);
      if (allow !== undefined) return answer(c, 405, null, { Allow: allow });
      return jsonAnswer(c, 404, JSON.stringify({ message: NOT_FOUND }));
    }),
  );
  root.onError(answerError);

  return root;
}

/**
 * Says once, at the first answer that shows the list's size, when the list already breaks a limit
 * (it was made before the limit was lowered): it is served as it is, and POSTs answer 507.
 */
function limitCheck(config: AppConfig, logSink: LogSink): (usage: ListUsage) => void {
  let checked = config.logLevel === "off" || config.logLevel === "error";
  return (usage) => {
    if (checked) return;
    checked = true;
    const warning = overLimitWarning(usage, listLimits(config));
    if (warning !== undefined) logSink.log(logEvent("warn", warning));
  };
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

/** A 32-bit FNV-1a hash in hex: enough to tell one build of the document from another. */
function fnv1a(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}
