// The keys that share a list: POST /lists/{name}/keys makes one, GET lists them, DELETE
// /lists/{name}/keys/{id} revokes one. Managing them is the deployment's business: a write.
import type { Context } from "hono";
import type { KeyRemoved, KeyRows, ListMissing } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { parseJson, readBody, requireJsonContentType } from "../http/request-body.ts";
import { type AppEnv, jsonResponse, respond } from "../http/request-context.ts";
import {
  KEY_ID_PATTERN,
  keyJson,
  keysJson,
  type ListKey,
  MAX_LIST_KEYS,
  mintKey,
  readNewKey,
} from "../list/list-keys.ts";
import { EMPTY_KEY_BODY, NOT_FOUND, tooManyKeys } from "../messages.ts";
import { keyOperations } from "./list-key-operations.ts";
import { LIST_NAME_PARAMETER, LIST_PATH, listMissing, requireLive, stateOf } from "./list-scope.ts";
import { MANAGE_ACCESS, type Route, type RouteContext } from "./route.ts";

/** A key's id, as the path carries it. */
const KEY_ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "The key's id, as its creation answered it; anything else gets 404",
  schema: { type: "string", pattern: `^${KEY_ID_PATTERN}$` },
};

/** The routes of /lists/{name}/keys and /lists/{name}/keys/{id}. */
export function listKeyRoutes({ lists, config }: RouteContext): Route[] {
  const operations = keyOperations(config);

  /** The keys of the path's list. */
  const keysOf = (c: Context<AppEnv>): { readonly name: string; readonly keys: KeyRows } => {
    const name = c.req.param("name") as string;
    c.get("requestState").list = name;
    return { name, keys: lists.list(name).keys };
  };

  return [
    {
      paths: [`${LIST_PATH}/keys`],
      parameters: [LIST_NAME_PARAMETER],
      tag: "keys",
      cors: true,
      methods: {
        GET: {
          ...MANAGE_ACCESS,
          ...operations.list,
          handler: async (c) => {
            const rows = present(await keysOf(c).keys.all());
            return jsonResponse(c, 200, keysJson(rows), { "Cache-Control": "no-store" });
          },
        },
        POST: {
          ...MANAGE_ACCESS,
          operation: operations.create,
          handler: async (c) => {
            const { name, keys } = keysOf(c);
            // A list that does not exist is told before its body is read, as a task's write is.
            requireLive(await stateOf(lists.list(name)));
            const body = await readBody(c, config.maxBodyBytes, config.timeRules.bodySilenceMs);
            requireJsonContentType(c.req.header("content-type"));
            const asked = readNewKey(parseJson(body, EMPTY_KEY_BODY), Date.now());
            if ("refused" in asked) throw apiError(400, asked.refused);
            const { row, key } = await mintKey(asked);
            const added = await keys.add(row, MAX_LIST_KEYS);
            if (added.outcome === "full") throw apiError(507, tooManyKeys(MAX_LIST_KEYS));
            if (added.outcome !== "added") listMissing(added);
            return jsonResponse(c, 201, keyJson(row, key), {
              Location: `${config.basePath}/lists/${name}/keys/${row.id}`,
              "Cache-Control": "no-store",
            });
          },
        },
      },
    },
    {
      paths: [`${LIST_PATH}/keys/:id{${KEY_ID_PATTERN}}`],
      parameters: [LIST_NAME_PARAMETER, KEY_ID_PARAMETER],
      tag: "keys",
      cors: true,
      methods: {
        DELETE: {
          ...MANAGE_ACCESS,
          operation: operations.revoke,
          handler: async (c) => {
            const removed: KeyRemoved = await keysOf(c).keys.remove(c.req.param("id") as string);
            if (removed.outcome === "not-found") throw apiError(404, NOT_FOUND);
            if (removed.outcome !== "removed") listMissing(removed);
            return respond(c, 204, null, {});
          },
        },
      },
    },
  ];
}

/** The keys, or the list's 404 or 410. */
function present(rows: readonly ListKey[] | ListMissing): readonly ListKey[] {
  if (!Array.isArray(rows)) listMissing(rows as ListMissing);
  return rows as readonly ListKey[];
}
