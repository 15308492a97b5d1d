// The lists: GET /lists enumerates them and POST creates one with a random name; /lists/{name} is
// one list, read, created or retitled with PUT, retitled with PATCH and deleted with DELETE.
import type { Context, MiddlewareHandler } from "hono";
import { SINGLE_LIST_VERSION } from "../engine/single-list.ts";
import type { ListState, ListWriteResult } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { conditionalResponse } from "../http/conditional.ts";
import { idempotencyKeyOf, rememberedKey } from "../http/idempotency.ts";
import { createOnly, listIfMatchOf, toListTitle } from "../http/list-body.ts";
import { wantsPage } from "../http/page-requests.ts";
import { parseJson, readBody, requireJsonContentType } from "../http/request-body.ts";
import { type AppEnv, type AppHandler, jsonResponse, respond } from "../http/request-context.ts";
import { requireMergePatchType } from "../http/task-patch.ts";
import { type ListEntry, listJson } from "../list/list-directory.ts";
import { DEFAULT_LIST, DEFAULT_TITLE } from "../list/list-names.ts";
import {
  EMPTY_LIST_BODY,
  EMPTY_PATCH,
  LIST_DELETED,
  LIST_KEY_REUSED,
  LISTS_NOT_SUPPORTED,
  NOT_FOUND,
  STALE_LIST,
  tooManyLists,
} from "../messages.ts";
import { allowOf } from "../pages/openapi.ts";
import { listOperations } from "./list-operations.ts";
import { LIST_NAME_PARAMETER, LIST_PATH, requireLive, stateOf } from "./list-scope.ts";
import { MANAGE_ACCESS, READ_ACCESS, type Route, type RouteContext } from "./route.ts";

const encoder = new TextEncoder();

/** The routes of /lists, /lists/default (which cannot be deleted) and /lists/{name}. */
export function listRoutes({ lists, config, sha256 }: RouteContext): Route[] {
  const limits = { maxLists: config.maxLists, maxKeys: config.maxIdempotencyKeys };
  const writeGuarded = config.writeTokens.length > 0;
  const operations = listOperations(config);
  const location = (name: string) => `${config.basePath}/lists/${name}`;
  let shown: { readonly version: string; readonly bytes: Uint8Array<ArrayBuffer> } | undefined;

  const nameOf = (c: Context<AppEnv>): string => {
    const name = c.req.param("name") ?? DEFAULT_LIST;
    c.get("requestState").list = name;
    return name;
  };

  /** Whether list `name` lives, with its title and version, as its own store says, its tasks unread where they live elsewhere. */
  const listState = async (name: string): Promise<ListState> => (await stateOf(lists.list(name))) ?? DEFAULT_STATE;

  /** The list `name` as its own store says, 404 or 410 when it does not exist. */
  const liveList = async (name: string): Promise<{ readonly entry: ListEntry; readonly version: string }> => {
    const state = await listState(name);
    requireLive(state);
    return { entry: { name, title: state.title }, version: state.version };
  };

  /** The answer to a list write: the list with its ETag, or the contract's error. */
  const written = (c: Context<AppEnv>, result: ListWriteResult): Response => {
    switch (result.outcome) {
      case "created":
        return jsonResponse(c, 201, listJson(result.list), {
          Location: location(result.list.name),
          ETag: `"${result.list.version}"`,
        });
      case "replayed": {
        const { name } = JSON.parse(result.json) as ListEntry;
        return jsonResponse(c, 201, result.json, { Location: location(name), "Idempotent-Replayed": "true" });
      }
      case "retitled":
      case "unchanged":
        return jsonResponse(c, 200, listJson(result.list), { ETag: `"${result.list.version}"` });
      case "deleted":
        return respond(c, 204, null, {});
      case "not-found":
        throw apiError(404, NOT_FOUND);
      case "gone":
        throw apiError(410, LIST_DELETED);
      case "precondition-failed":
        throw apiError(412, STALE_LIST);
      case "key-reused":
        throw apiError(422, LIST_KEY_REUSED);
      case "full":
        throw apiError(507, tooManyLists(result.maxLists));
      case "default-kept":
        return respond(c, 405, null, { Allow: DEFAULT_ALLOW });
      case "unsupported":
        throw apiError(501, LISTS_NOT_SUPPORTED);
    }
  };

  const getList: AppHandler = async (c) => {
    const { entry, version } = await liveList(nameOf(c));
    const body = () => {
      const text = listJson(entry);
      const bytes = encoder.encode(text) as Uint8Array<ArrayBuffer>;
      return { parts: [bytes], byteLength: bytes.byteLength, text };
    };
    return conditionalResponse(c, version, body, { "Cache-Control": "no-cache" });
  };

  const putList: AppHandler = async (c) => {
    const name = nameOf(c);
    const conditions = {
      ifMatch: listIfMatchOf(c.req.header("if-match")),
      ifNoneMatch: createOnly(c.req.header("if-none-match")),
    };
    // The preconditions are checked before any byte of the body is read, and again as the write is made.
    const state = await listState(name);
    const live = state.state === "live";
    const { ifMatch } = conditions;
    if (
      (conditions.ifNoneMatch && live) ||
      (ifMatch !== undefined && (!live || (ifMatch !== "any" && !ifMatch.includes(state.version))))
    ) {
      throw apiError(412, STALE_LIST);
    }
    const body = await readBody(c, config.maxBodyBytes, config.timeRules.bodySilenceMs);
    requireJsonContentType(c.req.header("content-type"));
    const title = toListTitle(parseJson(body, EMPTY_LIST_BODY), true);
    return written(c, await lists.put(name, title, conditions, limits));
  };

  const patchList: AppHandler = async (c) => {
    const name = nameOf(c);
    const ifMatch = listIfMatchOf(c.req.header("if-match"));
    const { version } = await liveList(name);
    if (ifMatch !== undefined && ifMatch !== "any" && !ifMatch.includes(version)) throw apiError(412, STALE_LIST);
    const body = await readBody(c, config.maxBodyBytes, config.timeRules.bodySilenceMs);
    requireMergePatchType(c.req.header("content-type"));
    const title = toListTitle(parseJson(body, EMPTY_PATCH), false);
    return written(c, await lists.patch(name, title, ifMatch));
  };

  // A browser at the list's path gets its page, whatever the list and the token: where that
  // sends it tells nothing. 302, not cached for good: the same path serves JSON to API clients.
  const toListPage: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (!wantsPage(c)) return next();
    return respond(c, 302, null, { Location: `${config.basePath}/lists/${nameOf(c)}/`, Vary: "Accept" });
  };

  const directory: Route = {
    paths: ["/lists"],
    tag: "lists",
    cors: true,
    methods: {
      GET: {
        access: "read",
        ...operations.directory,
        handler: async (c) => {
          const read = await lists.directory();
          if (shown?.version !== read.version) {
            shown = { version: read.version, bytes: encoder.encode(read.json) as Uint8Array<ArrayBuffer> };
          }
          const { bytes } = shown;
          return conditionalResponse(c, read.version, () => ({ parts: [bytes], byteLength: bytes.byteLength }), {
            "Cache-Control": "no-cache",
          });
        },
      },
      POST: {
        access: "write",
        operation: operations.create,
        handler: async (c) => {
          const key = idempotencyKeyOf(c);
          const body = await readBody(c, config.maxBodyBytes, config.timeRules.bodySilenceMs);
          requireJsonContentType(c.req.header("content-type"));
          const title = toListTitle(parseJson(body, EMPTY_LIST_BODY), true);
          const remembered =
            key === undefined ? undefined : await rememberedKey(c, key, { title }, writeGuarded, sha256);
          const result = await lists.create(title, limits, remembered);
          if (result.outcome === "created") c.get("requestState").list = result.list.name;
          return written(c, result);
        },
      },
    },
  };

  const one = (paths: string[], withDelete: boolean): Route => ({
    paths,
    ...(withDelete ? { parameters: [LIST_NAME_PARAMETER] } : {}),
    tag: "lists",
    cors: true,
    methods: {
      GET: {
        ...READ_ACCESS,
        ...(withDelete ? operations.get : operations.getDefault),
        beforeAccess: toListPage,
        handler: getList,
      },
      PUT: {
        ...MANAGE_ACCESS,
        operation: withDelete ? operations.put : operations.putDefault,
        handler: putList,
      },
      PATCH: {
        ...MANAGE_ACCESS,
        operation: withDelete ? operations.patch : operations.patchDefault,
        handler: patchList,
      },
      ...(withDelete
        ? {
            DELETE: {
              ...MANAGE_ACCESS,
              operation: operations.remove,
              handler: async (c) => {
                const name = nameOf(c);
                // /lists/default is its own route, without DELETE; this answers the same for it.
                if (name === DEFAULT_LIST) return respond(c, 405, null, { Allow: DEFAULT_ALLOW });
                return written(c, await lists.remove(name, listIfMatchOf(c.req.header("if-match"))));
              },
            },
          }
        : {}),
    },
  });

  const defaultList = one([`/lists/${DEFAULT_LIST}`], false);
  if (allowOf(defaultList) !== DEFAULT_ALLOW) throw new Error("The default list's Allow is GET, HEAD, PUT, PATCH");
  // The default list's route comes first, so that its path answers with its own Allow.
  return [directory, defaultList, one([LIST_PATH], true)];
}

/** What the default list answers a DELETE or a method it does not serve: it cannot be deleted. */
const DEFAULT_ALLOW = "GET, HEAD, PUT, PATCH";

/** The default list of a store that holds it alone and says nothing of it: never retitled. */
const DEFAULT_STATE = { state: "live", title: DEFAULT_TITLE, version: SINGLE_LIST_VERSION } as const;
