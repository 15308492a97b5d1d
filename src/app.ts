// The task list app: the route table (src/routes/) mounted inside the request wrapper, over the
// store seam. It uses only Web-standard APIs, so every runtime serves it as it is.
import { Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { TrieRouter } from "hono/router/trie-router";
import type { UpgradeWebSocket } from "hono/ws";
import type { AppConfig } from "./config.ts";
import { SingleList } from "./engine/single-list.ts";
import type { TaskLists, TaskStore } from "./engine/task-store.ts";
import { accessGuards } from "./http/access.ts";
import { onError } from "./http/error-response.ts";
import type { Sha256 } from "./http/idempotency.ts";
import { type AppEnv, type AppHandler, jsonResponse, type RuntimeOptions, respond } from "./http/request-context.ts";
import { type LogSink, requestLogger } from "./http/request-log.ts";
import { requestWrapper } from "./http/request-wrapper.ts";
import { ServedMethodsRouter } from "./http/served-methods-router.ts";
import { keyHash } from "./list/list-keys.ts";
import { DEFAULT_LIST } from "./list/list-names.ts";
import { NOT_FOUND } from "./messages.ts";
import { allowOf, METHODS } from "./pages/openapi.ts";
import { documentRoutes } from "./routes/documents.ts";
import { eventRoutes } from "./routes/events.ts";
import { listKeyRoutes } from "./routes/list-keys.ts";
import { inNamedList, LIST_PATH_PARAMETER, listScopes } from "./routes/list-scope.ts";
import { listRoutes } from "./routes/lists.ts";
import { taskRoute } from "./routes/task.ts";
import { taskRoutes } from "./routes/tasks.ts";

/** Where the lists live: every list of a store, or one store as the default list alone. */
export type AppLists =
  | { readonly lists: TaskLists; readonly store?: never }
  | { readonly store: TaskStore; readonly lists?: never };

/** What the app is built from: where the lists live, the validated configuration, and where logs go. */
export type AppOptions = AppLists & {
  readonly config: AppConfig;
  readonly logSink?: LogSink;
  /**
   * Send fixed bodies as text rather than bytes: Node's HTTP server writes a text body in the same
   * write as the head, and bytes in a second one; Deno copies bytes into each Response, and takes
   * a string as it is. Other runtimes send bytes as they are.
   */
  readonly textBodies?: boolean;
  /** The request's headers as the runtime parsed them, when it keeps them so: see {@link RuntimeOptions}. */
  readonly parsedHeaders?: RuntimeOptions["parsedHeaders"];
  /** A synchronous SHA-256 for Idempotency-Keys, where the runtime has one; else Web Crypto's. */
  readonly sha256?: Sha256;
  /** The runtime's WebSocket upgrade (Hono's `upgradeWebSocket` for it); without one, events are SSE only. */
  readonly upgradeWebSocket?: UpgradeWebSocket;
  /**
   * Takes a WebSocket subscriber at `cursor` instead of the runtime's upgrade: for a store that
   * holds its subscribers itself (the Durable Object, which hibernates them), and counts them; with
   * the hash of the list key that let the subscriber in, which then ends it once revoked or expired.
   */
  readonly openSocket?: (
    request: Request,
    cursor: number,
    list: string,
    keyHash?: string,
  ) => Response | Promise<Response>;
  /**
   * Aborts when the server is stopping: every subscription ends (streams finish, WebSockets close
   * with 1001), so subscribers come back with their cursor, and new ones get 503 meanwhile.
   */
  readonly closing?: AbortSignal;
};

/** The task list app, as {@link createApp} builds it. */
export type TaskApp = Hono<AppEnv>;

/** Builds the task list app. */
export function createApp({
  store,
  lists = new SingleList(store as TaskStore),
  config,
  logSink = console,
  textBodies = false,
  parsedHeaders,
  sha256,
  upgradeWebSocket,
  openSocket,
  closing,
}: AppOptions): TaskApp {
  // The routes sit under the base path; the 404 and error handlers respond to every other request too,
  // with request ids, logs and headers.
  const root = new Hono<AppEnv>({ router: new ServedMethodsRouter(LIST_PATH_PARAMETER) });
  const secrets = [...config.readTokens, ...config.writeTokens];
  const log = config.logLevel === "off" ? undefined : requestLogger(config.logLevel, logSink, secrets);
  const wrapper = requestWrapper(log, { textBodies, parsedHeaders });
  // A list key is looked up in the request's list alone: the one its path names, else the default one.
  const guards = accessGuards(
    config.readTokens,
    config.writeTokens,
    (c, hash) => lists.list(c.req.param("name") ?? DEFAULT_LIST).keys.byHash(hash),
    sha256 ?? keyHash,
  );

  /**
   * Serves `method` on `paths` with `handler` behind the optional middleware: a route with none is
   * one wrapped handler, Hono's fastest path; one with CORS or a token guard runs the wrapper first.
   */
  const route = (
    method: string,
    paths: string[],
    middleware: (MiddlewareHandler<AppEnv> | undefined)[],
    handler: AppHandler,
  ): void => {
    const chain = middleware.filter((step) => step !== undefined);
    if (chain.length === 0) root.on(method, paths, wrapper.wrap(handler));
    else root.on(method, paths, wrapper.middleware, ...chain, handler);
  };

  const context = { lists, config, logSink, sha256, upgradeWebSocket, openSocket, closing };
  const scopes = listScopes(lists);
  const [homeEvents = [], namedEvents = []] = eventRoutes(context, [scopes.home, scopes.named]);
  const routes = [...taskRoutes(context, scopes.home), ...homeEvents, ...taskRoute(context, scopes.home)];
  routes.push(...listRoutes(context), ...listKeyRoutes(context));
  routes.push(
    ...inNamedList([...taskRoutes(context, scopes.named), ...namedEvents, ...taskRoute(context, scopes.named)]),
  );
  routes.push(...documentRoutes(context, routes, scopes.named));

  // A path the app serves, asked with a method it does not serve, gets 405 with the methods it does.
  const allowed = new TrieRouter<string>();
  for (const each of routes) {
    const paths = each.paths.flatMap((path) => underBase(config.basePath, path));
    const allow = allowOf(each);
    for (const path of paths) allowed.add("ALL", path, allow);
    // A preflight names the methods its path serves; with CORS on, Hono's CORS middleware responds to
    // every OPTIONS itself, with 204.
    const withCors = each.cors ? corsFor(config, allow.split(", ")) : undefined;
    if (withCors !== undefined) root.on("OPTIONS", paths, wrapper.middleware, withCors);
    for (const method of METHODS) {
      const endpoint = each.methods[method];
      if (endpoint === undefined) continue;
      const guard = endpoint.access === "public" ? undefined : guards(endpoint.access, endpoint.listKey);
      route(method, paths, [withCors, endpoint.beforeAccess, guard], endpoint.handler);
    }
  }

  root.notFound(
    wrapper.wrap((c) => {
      const [[match]] = allowed.match("ALL", c.req.path);
      if (match !== undefined) return respond(c, 405, null, { Allow: match[0] });
      return jsonResponse(c, 404, JSON.stringify({ message: NOT_FOUND }));
    }),
  );
  root.onError(onError);

  return root;
}

/** Where a route's path is served: under the base path, and `/` as the base path itself, with or without its trailing slash. */
function underBase(basePath: string, path: string): string[] {
  if (path !== "/") return [`${basePath}${path}`];
  return basePath === "" ? ["/"] : [basePath, `${basePath}/`];
}

/** CORS for a path that serves `allowMethods`, when CORS_ORIGINS is set. */
function corsFor(config: AppConfig, allowMethods: string[]): MiddlewareHandler | undefined {
  if (config.corsOrigins === undefined) return undefined;
  return cors({
    origin: config.corsOrigins === "*" ? "*" : [...config.corsOrigins],
    allowMethods,
    // Preflights allow the headers they ask for, Authorization and Idempotency-Key among them.
    exposeHeaders: ["ETag", "X-Request-Id", "WWW-Authenticate", "Idempotent-Replayed", "Link"],
    maxAge: 86_400,
  });
}
