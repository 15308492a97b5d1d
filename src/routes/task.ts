// One task at /tasks/{id}: GET and HEAD read it with its ETag, PATCH merges a patch into it, PUT
// replaces it and DELETE removes it, each write guarded by If-Match and made in one atomic step.
import type { Context } from "hono";
import { listLimits } from "../config.ts";
import type {
  IfMatch,
  ListMissing,
  ListRead,
  RemoveResult,
  TaskPatch,
  TaskStore,
  UpdateResult,
} from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { conditionalResponse } from "../http/conditional.ts";
import { toNewTask } from "../http/new-task.ts";
import { parseJson, readBody, requireJsonContentType } from "../http/request-body.ts";
import { type AppEnv, jsonResponse, respond } from "../http/request-context.ts";
import { ifMatchOf, requireMergePatchType, toTaskPatch } from "../http/task-patch.ts";
import type { TaskRead } from "../list/list-version.ts";
import { EMPTY_PATCH, fullOfBytes, fullOfTasks, NOT_FOUND, STALE_IF_MATCH, TASK_DELETED } from "../messages.ts";
import { type ListScope, listMissing, requireList } from "./list-scope.ts";
import { READ_ACCESS, type Route, type RouteContext, WRITE_ACCESS } from "./route.ts";
import { TASK_ID_PARAMETER, taskOperations } from "./task-operations.ts";

/** A task's id as the list writes it: 1 to 15 digits, no leading zero; anything else is no task (404). */
const TASK_PATH = "/tasks/:id{[1-9][0-9]{0,14}}";
const MERGE_PATCH = "application/merge-patch+json";
const TASK_HEADERS = { "Cache-Control": "no-cache", "Accept-Patch": MERGE_PATCH };

/** GET, HEAD, PUT, PATCH and DELETE of one task of the list `scope` says. */
export function taskRoute({ config }: RouteContext, scope: ListScope): Route[] {
  const limits = listLimits(config);
  const operations = taskOperations(config);

  /**
   * Responds 404 or 410 for a list that does not exist or a task it does not hold, 412 for a stale
   * If-Match, before any body is read: at once when the store reads synchronously, or knows without
   * asking that the write's own checks will find the task (a Durable Object's copy).
   */
  const checkTask = (store: TaskStore, id: number, ifMatch: IfMatch): Promise<void> | undefined => {
    if (store.knows?.(id, ifMatch) === true) return undefined;
    const list = store.read();
    if (list instanceof Promise) return list.then((done) => checkFound(requireList(done).task(id), ifMatch));
    checkFound(requireList(list).task(id), ifMatch);
    return undefined;
  };

  /** The response to a write that left the task in the list, or the contract's error for why not. */
  const written = (
    c: Context<AppEnv>,
    result: UpdateResult | RemoveResult | ListMissing,
    withTag: boolean,
  ): Response => {
    switch (result.outcome) {
      case "updated":
      case "unchanged": {
        const headers: Record<string, string> = withTag ? { ETag: `"${result.version}"` } : {};
        return jsonResponse(c, 200, result.json, headers);
      }
      case "deleted":
        return respond(c, 204, null, {});
      default:
        return refused(result);
    }
  };

  /**
   * A PATCH or PUT: the task and If-Match are checked before any byte of the body is read, then the
   * body becomes a patch (`toPatch` checks its type and fields), applied in one atomic step.
   */
  const edit = async (
    c: Context<AppEnv>,
    withTag: boolean,
    toPatch: (body: Uint8Array) => TaskPatch,
  ): Promise<Response> => {
    const store = scope.storeOf(c);
    const id = Number(c.req.param("id"));
    const ifMatch = ifMatchOf(c.req.header("if-match"));
    const checking = checkTask(store, id, ifMatch);
    if (checking !== undefined) await checking;
    const patch = toPatch(await readBody(c, config.maxBodyBytes, config.timeRules.bodySilenceMs));
    return written(c, await store.update(id, patch, limits, ifMatch), withTag);
  };

  const getTask = (c: Context<AppEnv>, read: ListRead): Response => {
    const found = requireList(read).task(Number(c.req.param("id")));
    if (found.outcome === "not-found") throw apiError(404, NOT_FOUND);
    if (found.outcome === "gone") throw apiError(410, TASK_DELETED);
    const body = { parts: [found.json], byteLength: found.json.byteLength };
    return conditionalResponse(c, found.version, () => body, { ...TASK_HEADERS });
  };

  return [
    {
      paths: [TASK_PATH],
      parameters: [TASK_ID_PARAMETER],
      tag: "tasks",
      cors: true,
      methods: {
        GET: {
          ...READ_ACCESS,
          ...operations.GET,
          handler: (c) => {
            const list = scope.storeOf(c).read();
            return list instanceof Promise ? list.then((done) => getTask(c, done)) : getTask(c, list);
          },
        },
        PATCH: {
          ...WRITE_ACCESS,
          operation: operations.PATCH,
          handler: (c) =>
            edit(c, true, (body) => {
              requireMergePatchType(c.req.header("content-type"));
              return toTaskPatch(parseJson(body, EMPTY_PATCH));
            }),
        },
        PUT: {
          ...WRITE_ACCESS,
          operation: operations.PUT,
          handler: (c) =>
            edit(c, false, (body) => {
              requireJsonContentType(c.req.header("content-type"));
              return toNewTask(parseJson(body));
            }),
        },
        DELETE: {
          ...WRITE_ACCESS,
          operation: operations.DELETE,
          handler: async (c) => {
            const store = scope.storeOf(c);
            const id = Number(c.req.param("id"));
            return written(c, await store.remove(id, ifMatchOf(c.req.header("if-match"))), false);
          },
        },
      },
    },
  ];

  function checkFound(found: TaskRead, ifMatch: IfMatch): void {
    if (found.outcome === "not-found") throw apiError(404, NOT_FOUND);
    if (found.outcome === "gone") throw apiError(410, TASK_DELETED);
    if (ifMatch !== undefined && !ifMatch.includes(found.version)) throw apiError(412, STALE_IF_MATCH);
  }

  function refused(result: UpdateResult | RemoveResult | ListMissing): never {
    switch (result.outcome) {
      case "list-gone":
      case "list-not-found":
        return listMissing(result);
      case "not-found":
        throw apiError(404, NOT_FOUND);
      case "gone":
        throw apiError(410, TASK_DELETED);
      case "precondition-failed":
        throw apiError(412, STALE_IF_MATCH);
      case "full":
        throw apiError(507, result.limit === "tasks" ? fullOfTasks(limits.maxTasks) : fullOfBytes(limits.maxBytes));
      default:
        throw new Error(`A task write cannot return ${result.outcome}`);
    }
  }
}
