// Which list a route serves: the default one at today's paths, or the one its path names under
// /lists/{name}/; and the named list's rows of the table, made from the default list's.
import type { Context } from "hono";
import type { ListMissing, ListRead, ListState, TaskLists, TaskStore } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import type { AppEnv } from "../http/request-context.ts";
import type { ScopeParameter } from "../http/served-methods-router.ts";
import { DEFAULT_LIST, NAME_PATTERN } from "../list/list-names.ts";
import type { ListVersion } from "../list/list-version.ts";
import { LIST_DELETED, NOT_FOUND } from "../messages.ts";
import type { Operation } from "../pages/openapi.ts";
import { errorResponse, type Json } from "../pages/openapi-parts.ts";
import type { HandledEndpoint, Route } from "./route.ts";

/** A list's own path: its name is a DNS label, anything else is no list (404). */
export const LIST_PATH = `/lists/:name{${NAME_PATTERN}}`;

/** The list's name as the router reads it apart from the rest of the path, one test rather than a search. */
export const LIST_PATH_PARAMETER: ScopeParameter = {
  path: LIST_PATH,
  name: "name",
  pattern: new RegExp(`^(?:${NAME_PATTERN})$`),
};

/** The list's name, as the path carries it. */
export const LIST_NAME_PARAMETER: Json = {
  name: "name",
  in: "path",
  required: true,
  description:
    "The list's name: 1 to 63 of a-z, 0-9 and -, starting and ending with a letter or digit; anything else gets 404",
  schema: { type: "string", pattern: `^${NAME_PATTERN}$` },
};

/** Which list a route's requests are about, and how its store is found. */
export interface ListScope {
  /** Whether the path names the list: it may then not exist (404) or be deleted (410). */
  readonly named: boolean;
  /** The store of the request's list. */
  readonly storeOf: (c: Context<AppEnv>) => TaskStore;
}

/**
 * The scopes of the default list and of the list a path names. Each request asks for its list's
 * store: a store may open its lists on first use (Workers allow no random values at start-up).
 */
export function listScopes(lists: TaskLists): { readonly home: ListScope; readonly named: ListScope } {
  return {
    home: {
      named: false,
      storeOf: (c) => {
        c.get("requestState").list = DEFAULT_LIST;
        return lists.list(DEFAULT_LIST);
      },
    },
    named: {
      named: true,
      storeOf: (c) => {
        const name = c.req.param("name") as string;
        c.get("requestState").list = name;
        return lists.list(name);
      },
    },
  };
}

/** Refuses a list that does not exist: 404 when it was never created, 410 when it was deleted. */
export function requireLive(
  list: ListState | undefined,
): asserts list is Extract<ListState, { state: "live" }> | undefined {
  if (list?.state === "not-found") throw apiError(404, NOT_FOUND);
  if (list?.state === "gone") throw apiError(410, LIST_DELETED);
}

/**
 * Whether the list `store` holds lives, with its title and version where it has them, its tasks
 * unread where they live elsewhere. Undefined for a store of one list, which always lives.
 */
export async function stateOf(store: TaskStore): Promise<ListState | undefined> {
  return store.state === undefined ? (await store.read()).list : await store.state();
}

/** The version a read found, refusing a read of a list that does not exist as `requireLive` does. */
export function requireList(read: ListRead): ListVersion {
  requireLive(read.list);
  return read.version;
}

/** Refuses a write to a list that does not exist, as its store answered it. */
export function listMissing(result: ListMissing): never {
  if (result.outcome === "list-gone") throw apiError(410, LIST_DELETED);
  throw apiError(404, NOT_FOUND);
}

/** The responses of an operation on a named list that may not exist. */
const MISSING_LIST: Readonly<Record<string, Json>> = {
  "404": errorResponse("No list was ever created under this name", NOT_FOUND),
  "410": errorResponse("The list was deleted: it and its tasks are gone", LIST_DELETED),
};

/**
 * The default list's routes as a named list serves them: under `/lists/{name}`, with the name as
 * a parameter, each operation's id suffixed `InList` and its 404 and 410 saying what they mean
 * for the list too. `/index.php` is not among them: it is served at the top level only.
 */
export function inNamedList(routes: readonly Route[]): Route[] {
  return routes.map((route) => {
    const methods: Record<string, HandledEndpoint> = {};
    for (const [method, endpoint] of Object.entries(route.methods) as [string, HandledEndpoint][]) {
      const named = { ...endpoint, operation: inList(endpoint.operation) };
      const head = (endpoint as { head?: { operationId: string } }).head;
      methods[method] =
        head === undefined
          ? named
          : ({ ...named, head: { ...head, operationId: `${head.operationId}InList` } } as HandledEndpoint);
    }
    return {
      ...route,
      paths: route.paths.filter((path) => path !== "/index.php").map((path) => `${LIST_PATH}${path}`),
      parameters: [LIST_NAME_PARAMETER, ...(route.parameters ?? [])],
      methods,
    };
  });
}

function inList(operation: Operation): Operation {
  const responses = { ...operation.responses };
  for (const [status, missing] of Object.entries(MISSING_LIST)) {
    const own = responses[status] as { description?: string } | undefined;
    responses[status] =
      own === undefined
        ? missing
        : {
            ...own,
            description: `${own.description}; or ${(missing as { description: string }).description.toLowerCase()}`,
          };
  }
  return { ...operation, operationId: `${operation.operationId}InList`, responses };
}
