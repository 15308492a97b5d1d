// The OpenAPI 3.1 document, derived from the route table: each route's paths, methods and
// operations, with what every operation shares (access, 500, HEAD beside GET, CORS preflights).
import type { AppConfig } from "../config.ts";
import type { KeyNeed } from "../list/list-keys.ts";
import { NOT_FOUND } from "../messages.ts";
import { components, errorResponse, type Json, response, TAGS, type Tag } from "./openapi-parts.ts";

/** The methods a route may serve, in the order `Allow` lists them; HEAD comes with GET. */
export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
/** A method a route may serve. */
export type Method = (typeof METHODS)[number];
const ALLOW_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * How the document describes one operation; access, 500 and alias ids are added for every operation,
 * and the runtime's refusals for one with no 4xx of its own.
 */
export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters?: readonly Json[];
  readonly requestBody?: Json;
  readonly responses: Readonly<Record<string, Json>>;
}

/**
 * The responses of a DELETE under If-Match: 204 with no body; `missing`, `gone` and `stale`, which
 * say in the resource's own words that it never was, was deleted, or is not that version; or 503.
 */
export function deleteResponses(
  missing: Readonly<Record<string, Json>>,
  gone: Readonly<Record<string, Json>>,
  stale: Readonly<Record<string, Json>>,
): Operation["responses"] {
  return {
    "204": { description: "Deleted; no body" },
    ...missing,
    ...gone,
    ...stale,
    "503": response("StoreUnavailable"),
  };
}

/** Who may call an endpoint when tokens are set: a reader, a writer, or anyone. */
export type Access = "read" | "write" | "public";

/** What the document needs of one method of a route. */
export interface Endpoint {
  readonly access: Access;
  /** What a key of the request's list must be to pass the token check here; none: no list key does. */
  readonly listKey?: KeyNeed;
  readonly operation: Operation;
}

/** The HEAD that comes with a GET: GET's responses without their bodies, less the statuses it never gives. */
export interface HeadOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly without?: readonly string[];
}

/** A route's endpoints by method. */
export type Endpoints<E extends Endpoint> = { readonly [M in Exclude<Method, "GET">]?: E } & {
  readonly GET?: E & { readonly head: HeadOperation };
};

/** What the document needs of a route: its paths, whether browsers may call it, and its endpoints. */
export interface DocumentedRoute<E extends Endpoint = Endpoint> {
  /**
   * Hono paths under the base path, the first the route's own and the rest aliases: `:name{regex}`
   * is a path parameter, and `/` is the base path itself.
   */
  readonly paths: readonly string[];
  /** The path's parameters, for every operation on it (a CORS preflight's too). */
  readonly parameters?: readonly Json[];
  /** The document's tag for the route's operations. */
  readonly tag: Tag;
  /** Whether CORS_ORIGINS apply: its OPTIONS is then a preflight. */
  readonly cors: boolean;
  readonly methods: Endpoints<E>;
  /**
   * Left out of the document: a named list's page, `/lists/{name}/`, whose trailing slash OpenAPI's
   * linters refuse beside `/lists/{name}`. `GET /lists/{name}` says where it is.
   */
  readonly undocumented?: true;
}

/** The `Allow` value of a route: its methods, HEAD with GET. */
export function allowOf(route: DocumentedRoute): string {
  const methods = METHODS.filter((method) => route.methods[method] !== undefined);
  const allowed = new Set<string>(methods.includes("GET") ? [...methods, "HEAD"] : methods);
  return ALLOW_ORDER.filter((method) => allowed.has(method)).join(", ");
}

/** The OpenAPI document of the routes, for this configuration. */
export function openApiDocument(config: AppConfig, routes: readonly DocumentedRoute[]): Json {
  const parts = components(config);
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.undocumented) continue;
    route.paths.forEach((path, index) => {
      const documented = openApiPath(path);
      paths[documented] = pathItem(config, route, index === 0 ? "" : pascal(documented), documented, parts);
    });
  }
  const tags = [...new Set(routes.map((route) => route.tag))].map((name) => ({ name, description: TAGS[name] }));
  return {
    openapi: "3.1.0",
    info: {
      title: "Task list service",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      contact: { name: "Task list service maintainers" },
      description:
        "An ordered list of tasks. /tasks and /index.php serve the same list, and /tasks/{id} one task of it; / is a page for people that shows it. A method a path does not list gets 405 with no body and an Allow header naming the methods it lists (HEAD with GET; OPTIONS only as a CORS preflight). Any other path answers 404 with an Error body.",
    },
    servers: [{ url: config.basePath === "" ? "/" : config.basePath }],
    tags,
    paths,
    components: withoutUnused(paths, parts),
  };
}

/** One path's operations; `suffix` keeps an alias's operation ids unique. */
function pathItem(config: AppConfig, route: DocumentedRoute, suffix: string, path: string, parts: Json): Json {
  const item: Record<string, unknown> = {
    description: `Any method not listed here gets 405 with no body and Allow: ${allowOf(route)}`,
    ...(route.parameters === undefined ? {} : { parameters: route.parameters }),
  };
  const operation = (endpoint: Endpoint, own: Operation): Json => {
    const guarded = access(config, endpoint);
    return {
      ...own,
      operationId: `${own.operationId}${suffix}`,
      tags: [route.tag],
      security: guarded.security,
      responses: sortedStatuses(
        withRefusals({ ...guarded.responses, ...own.responses, "500": response("InternalError") }),
      ),
    };
  };
  for (const method of METHODS) {
    const endpoint = route.methods[method];
    if (endpoint === undefined) continue;
    const described = operation(endpoint, endpoint.operation);
    item[method.toLowerCase()] = described;
    if (route.methods.GET !== undefined && method === "GET") {
      item.head = headOf(described, route.methods.GET.head, suffix, parts);
    }
  }
  if (route.cors && config.corsOrigins !== undefined) {
    // A path parameter out of its pattern is no path of the route: 404, as for every method.
    const outOfPattern: Record<string, Json> = route.parameters?.some((parameter) => parameter.in === "path")
      ? { "404": errorResponse("A path parameter is not written as described", NOT_FOUND) }
      : {};
    item.options = {
      operationId: `preflight${pascal(path)}`,
      summary: "CORS preflight",
      description: `A browser's preflight before a cross-origin request: for the origins CORS_ORIGINS names, the methods this path serves (${allowOf(route)}) and the request headers asked for. Anyone may send it; it never needs a token.`,
      tags: [route.tag],
      security: [],
      responses: sortedStatuses(
        withRefusals({
          "204": { description: "Preflight handled; Access-Control-* headers tell what is allowed" },
          ...outOfPattern,
        }),
      ),
    };
  }
  return item;
}

/** The HEAD beside a GET: the same parameters and statuses, every response without its body. */
function headOf(get: Json, head: HeadOperation, suffix: string, parts: Json): Json {
  const responses = get.responses as Record<string, Json>;
  const responseParts = parts.responses as Record<string, Json>;
  const bodiless = Object.entries(responses)
    .filter(([status]) => !head.without?.includes(status))
    .map(([status, entry]): [string, Json] => {
      const name = typeof entry.$ref === "string" ? entry.$ref.split("/").at(-1) : undefined;
      const { content: _, $ref: __, ...rest } = { ...(name === undefined ? {} : responseParts[name]), ...entry };
      return [status, rest];
    });
  return {
    ...get,
    operationId: `${head.operationId}${suffix}`,
    summary: head.summary,
    responses: Object.fromEntries(bodiless),
  };
}

/**
 * What an operation declares of access: with tokens set for it, the bearer scheme and the 401 (and
 * 403) it may respond with; else, explicitly, that it needs none.
 */
function access(config: AppConfig, { access: who, listKey }: Endpoint): { security: Json[]; responses: Json } {
  const guarded = who === "read" ? config.readTokens.length > 0 : who === "write" && config.writeTokens.length > 0;
  if (!guarded) return { security: [], responses: {} };
  const readOnly = who === "write" && (config.readTokens.length > 0 || listKey === "write");
  const keyed = listKey === "read" || listKey === "write";
  return {
    security: keyed ? [{ bearerToken: [] }, { listKey: [] }] : [{ bearerToken: [] }],
    responses: {
      "401": response("Unauthorized"),
      ...(listKey === "manage"
        ? { "403": response("KeyNotForList") }
        : readOnly
          ? { "403": response("ReadOnly") }
          : {}),
    },
  };
}

/**
 * The responses with the runtime's refusals of a request it cannot take, when the service itself
 * answers no 4xx: so every operation says how a client's request may fail. Where the service has a
 * 4xx of its own, a client's typed errors stay the service's JSON ones.
 */
function withRefusals(responses: Record<string, Json>): Record<string, Json> {
  if (Object.keys(responses).some((status) => status.startsWith("4"))) return responses;
  return { ...responses, "4XX": response("RefusedByRuntime") };
}

function sortedStatuses(responses: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** A Hono path as OpenAPI writes it: `:id{[0-9]+}` becomes `{id}`. */
export function openApiPath(path: string): string {
  let documented = "";
  for (let at = 0; at < path.length; ) {
    const param = /^:(\w+)/.exec(path.slice(at));
    if (param === null) {
      documented += path[at];
      at += 1;
      continue;
    }
    documented += `{${param[1]}}`;
    at += param[0].length;
    if (path[at] !== "{") continue;
    // The parameter's pattern may hold braces of its own, such as {1,15}.
    for (let depth = 0; at < path.length; at += 1) {
      if (path[at] === "{") depth += 1;
      else if (path[at] === "}") depth -= 1;
      if (depth === 0) break;
    }
    at += 1;
  }
  return documented;
}

/** `/index.php` as `IndexPhp`: part of an operation id. */
function pascal(path: string): string {
  return path
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/** The components the paths use, directly or through each other: the rest are left out. */
function withoutUnused(paths: Json, parts: Json): Json {
  const used = new Set<string>();
  const nodeAt = (ref: string): unknown => {
    const [, kind, name] = ref.split("/").slice(1);
    return (parts[kind ?? ""] as Json | undefined)?.[name ?? ""];
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const each of node) visit(each);
    else if (typeof node === "object" && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") {
          if (used.has(value)) continue;
          used.add(value);
          visit(nodeAt(value));
        } else if (key === "security" && Array.isArray(value)) {
          for (const name of value.flatMap((each) => Object.keys(each))) {
            used.add(`#/components/securitySchemes/${name}`);
          }
        } else visit(value);
      }
    }
  };
  visit(paths);
  const kept = Object.entries(parts).map(([kind, entries]): [string, Json] => [
    kind,
    Object.fromEntries(Object.entries(entries as Json).filter(([name]) => used.has(`#/components/${kind}/${name}`))),
  ]);
  return Object.fromEntries(kept.filter(([, entries]) => Object.keys(entries).length > 0));
}
