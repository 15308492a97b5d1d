// The service's documents: /openapi.json, derived from the whole route table, and the home page
// for people at the base path itself.
import type { Context } from "hono";
import { conditionalResponse } from "../http/conditional.ts";
import { wantsPage } from "../http/page-requests.ts";
import { type AppEnv, type AppHandler, respond } from "../http/request-context.ts";
import { homePage, serviceWorker } from "../pages/home.ts";
import { DELETED_HTML, NOT_FOUND_HTML } from "../pages/missing-pages.generated.ts";
import { type Operation, openApiDocument } from "../pages/openapi.ts";
import { header, json, parameter, response } from "../pages/openapi-parts.ts";
import { LIST_NAME_PARAMETER, LIST_PATH, type ListScope, requireList } from "./list-scope.ts";
import type { Route, RouteContext } from "./route.ts";

const HTML_TYPE = "text/html; charset=utf-8";
const JS_TYPE = "text/javascript; charset=utf-8";
/** What a document for browsers is described as sending: its ETag, its Cache-Control, and a policy of its own. */
const PAGE_HEADERS = {
  ETag: header("ETag"),
  "Cache-Control": header("CacheControl"),
  "Content-Security-Policy": header("ContentSecurityPolicy"),
};

/**
 * GET and HEAD of the OpenAPI document of `routes` and these, of the home page, and of a named
 * list's page (the same page, at `/lists/{name}/`).
 */
export function documentRoutes({ config }: RouteContext, routes: readonly Route[], named: ListScope): Route[] {
  const openApi = documentRoute({
    path: "/openapi.json",
    cors: true,
    get: fixed(
      "getOpenApiDocument",
      "This document",
      "The OpenAPI 3.1 description of this deployment, built from its route table and settings: its base path, tokens, CORS and limits. Anyone may read it.",
      { ETag: header("ETag") },
      json({ type: "object" }),
    ),
    head: "headOpenApiDocument",
    handler: (c) => conditionalResponse(c, document.tag, () => document.body, {}),
  });

  // The home page is for people, so it has no CORS.
  const page = homePage();
  const home = documentRoute({
    path: "/",
    cors: false,
    get: fixed(
      "getHomePage",
      "The home page for people: the list, kept current while open, and a form to add a task",
      "An HTML page for a browser: it reads and follows the list through this API, and adds, renames, completes and deletes tasks. Its Content-Security-Policy lets it reach its own origin only. Anyone may read it; writing through it needs what the API needs.",
      PAGE_HEADERS,
      { "text/html": { schema: { type: "string" } } },
    ),
    head: "headHomePage",
    handler: (c) => {
      const built = page();
      const pageResponse = ({ version, body, policy }: Awaited<typeof built>) =>
        conditionalResponse(
          c,
          version,
          () => body,
          { "Cache-Control": "no-cache", "Content-Security-Policy": policy },
          HTML_TYPE,
        );
      return built instanceof Promise ? built.then(pageResponse) : pageResponse(built);
    },
  });
  const pageHandler = home.methods.GET?.handler;
  if (pageHandler === undefined) throw new Error("The home page serves GET");
  // A named list's page: 404 or 410 when the list does not exist, so a person sees that at once, as
  // a small page of its own for a browser, as JSON for an API client. With tokens set it reads no
  // list and is the same for every name, so it tells a stranger nothing; the page says what its
  // own reads, with a token, find.
  const guarded = config.readTokens.length > 0 || config.writeTokens.length > 0;
  const listPage: Route = {
    ...home,
    paths: [`${LIST_PATH}/`],
    parameters: [LIST_NAME_PARAMETER],
    undocumented: true,
    methods: {
      GET: {
        ...home.methods.GET,
        handler: async (c) => {
          if (guarded) return pageHandler(c);
          const read = await named.storeOf(c).read();
          const state = read.list?.state;
          if ((state === "gone" || state === "not-found") && wantsPage(c)) return missingPage(c, state);
          requireList(read);
          return pageHandler(c);
        },
      },
    },
  } as Route;
  const worker = serviceWorkerRoute(config.basePath);
  // The document describes the whole table, these routes included.
  const bytes = new TextEncoder().encode(JSON.stringify(openApiDocument(config, [...routes, openApi, home, worker])));
  const document = {
    body: { parts: [bytes as Uint8Array<ArrayBuffer>], byteLength: bytes.byteLength },
    tag: fnv1a(bytes),
  };
  return [openApi, home, listPage, worker];
}

/**
 * The home page's service worker, beside it, so that a page reloaded offline shows as last loaded.
 * It may be given the base path itself as its scope, which the page without its trailing slash is in.
 */
function serviceWorkerRoute(basePath: string): Route {
  const script = serviceWorker();
  const headers = () => ({
    "Cache-Control": "no-cache",
    "Content-Security-Policy": script.policy,
    "Service-Worker-Allowed": basePath === "" ? "/" : basePath,
  });
  return documentRoute({
    path: "/service-worker.js",
    cors: false,
    get: fixed(
      "getServiceWorker",
      "The home page's service worker",
      "A script the home page registers: it keeps the page's own document, network first, so that a reload without a network shows the page as last loaded. It keeps no answer of the API. Anyone may read it.",
      {
        ...PAGE_HEADERS,
        "Service-Worker-Allowed": {
          description: "The widest scope the worker may be registered for: the base path",
          required: true,
          schema: { type: "string" },
        },
      },
      { "text/javascript": { schema: { type: "string" } } },
    ),
    head: "headServiceWorker",
    handler: (c) => conditionalResponse(c, script.version, () => script.body, headers(), JS_TYPE),
  });
}

/** One of the service's documents: anyone may GET it, or HEAD it, at a path of its own. */
interface DocumentParts {
  readonly path: string;
  /** Whether CORS_ORIGINS apply: not to what is for people, at this origin only. */
  readonly cors: boolean;
  readonly get: Operation;
  /** The operation id of the HEAD beside the GET. */
  readonly head: string;
  readonly handler: AppHandler;
}

/** The route of one of the service's documents, as `parts` describe it. */
function documentRoute(parts: DocumentParts): Route {
  const { path, cors, get, head, handler } = parts;
  return {
    paths: [path],
    tag: "documents",
    cors,
    methods: {
      GET: {
        access: "public",
        operation: get,
        head: { operationId: head, summary: "What GET returns, without the body" },
        handler,
      },
    },
  };
}

const encoder = new TextEncoder();
const MISSING_PAGES = {
  "not-found": { status: 404, bytes: encoder.encode(NOT_FOUND_HTML) },
  gone: { status: 410, bytes: encoder.encode(DELETED_HTML) },
} as const;
/** The missing pages hold no script, style or image: their policy allows nothing to load. */
const MISSING_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A browser's page for a list never created (404) or deleted (410), with a link home. */
function missingPage(c: Context<AppEnv>, state: keyof typeof MISSING_PAGES): Response {
  const { status, bytes } = MISSING_PAGES[state];
  const body = c.req.method === "HEAD" ? null : (bytes as Uint8Array<ArrayBuffer>);
  return respond(
    c,
    status,
    body,
    {
      "Content-Type": HTML_TYPE,
      "Content-Length": String(bytes.byteLength),
      "Cache-Control": "no-cache",
      "Content-Security-Policy": MISSING_POLICY,
      Vary: "Accept",
    },
    bytes.byteLength,
  );
}

/** The GET of a fixed resource. */
function fixed(
  operationId: string,
  summary: string,
  description: string,
  headers: Record<string, unknown>,
  content: object,
): Operation {
  return {
    operationId,
    summary,
    description,
    parameters: [parameter("IfNoneMatch")],
    responses: { "200": { description: summary, headers, content }, "304": response("NotModified") },
  };
}

/** A 32-bit FNV-1a hash in hex: enough to tell one build of the document from another. */
function fnv1a(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}
