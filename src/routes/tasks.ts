// The list: GET (and HEAD) reads it, whole or after a cursor, filtered and in pages, and POST
// appends a task, at /tasks and at /index.php, which serves the same list.
import type { Context } from "hono";
import { type AppConfig, listLimits, logShows } from "../config.ts";
import type { ListRead } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { conditionalResponse } from "../http/conditional.ts";
import { idempotencyKeyOf, rememberedKey } from "../http/idempotency.ts";
import { toNewTask } from "../http/new-task.ts";
import { parseJson, readBody, requireJsonContentType } from "../http/request-body.ts";
import { type AppEnv, jsonResponse } from "../http/request-context.ts";
import { type LogSink, logEvent } from "../http/request-log.ts";
import { type ListUsage, overLimitWarning } from "../list/limits.ts";
import type { PageQuery } from "../list/list-page.ts";
import { INITIAL_TASKS } from "../list/task.ts";
import {
  BAD_COMPLETED,
  BAD_IDEMPOTENCY_KEY,
  badCursor,
  badLimit,
  bodyStalled,
  bodyTooLarge,
  fullOfBytes,
  fullOfTasks,
  KEY_IN_PROGRESS,
  KEY_REUSED,
  MISSING_FIELD,
  NOT_JSON_TYPE,
  TITLE_NOT_WELL_FORMED,
} from "../messages.ts";
import { errorResponse, header, json, parameter, response, schema } from "../pages/openapi-parts.ts";
import { listQuery, MAX_LIMIT, nextLink } from "./list-query.ts";
import { type ListScope, listMissing, requireList } from "./list-scope.ts";
import { READ_ACCESS, type Route, type RouteContext, WRITE_ACCESS } from "./route.ts";

/** The two paths that serve the same list (a named list's has `/tasks` only). */
const TASK_PATHS = ["/tasks", "/index.php"];

/** GET, HEAD and POST of the list `scope` says. */
export function taskRoutes({ config, logSink, sha256 }: RouteContext, scope: ListScope): Route[] {
  const limits = listLimits(config);
  const checkLimits = limitCheck(config, logSink);
  const writeGuarded = config.writeTokens.length > 0;

  // A query asks for part of the list only: the list's ETag still says whether anything changed.
  const listResponse = (c: Context<AppEnv>, read: ListRead, query: PageQuery): Response => {
    const list = requireList(read);
    checkLimits(list.usage);
    const headers: Record<string, string> = { "Cache-Control": "no-cache" };
    // The page is made, and its Link found, only for a 200: a 304 carries neither.
    const body = () => {
      const page = list.page(query);
      if (page.next !== undefined) headers.Link = nextLink(c.req.path, query, page.next);
      return page.body;
    };
    return conditionalResponse(c, list.version, body, headers);
  };

  return [
    {
      paths: TASK_PATHS,
      tag: "tasks",
      cors: true,
      methods: {
        GET: {
          ...READ_ACCESS,
          operation: LIST_TASKS,
          head: { operationId: "headTasks", summary: "What GET returns, without the body" },
          handler: (c) => {
            const store = scope.storeOf(c);
            const query = listQuery(c);
            const list = store.read();
            return list instanceof Promise
              ? list.then((read) => listResponse(c, read, query))
              : listResponse(c, list, query);
          },
        },
        POST: {
          ...WRITE_ACCESS,
          operation: createTask(config),
          handler: async (c) => {
            const store = scope.storeOf(c);
            // A list that does not exist answers so before its body is read.
            if (scope.named && store.knows?.() !== true) {
              const read = store.read();
              requireList(read instanceof Promise ? await read : read);
            }
            const key = idempotencyKeyOf(c);
            const body = await readBody(c, config.maxBodyBytes, config.timeRules.bodySilenceMs);
            requireJsonContentType(c.req.header("content-type"));
            const task = toNewTask(parseJson(body));
            const remembered = key === undefined ? undefined : await rememberedKey(c, key, task, writeGuarded, sha256);
            const result = await store.append(task, limits, remembered);
            if (!("usage" in result)) return listMissing(result);
            checkLimits(result.usage);
            switch (result.outcome) {
              case "added":
                return jsonResponse(c, 200, result.json);
              case "replayed":
                return jsonResponse(c, 200, result.json, { "Idempotent-Replayed": "true" });
              case "key-reused":
                throw apiError(422, KEY_REUSED);
              case "full":
                throw apiError(
                  507,
                  result.limit === "tasks" ? fullOfTasks(limits.maxTasks) : fullOfBytes(limits.maxBytes),
                );
            }
          },
        },
      },
    },
  ];
}

const LIST_TASKS = {
  operationId: "listTasks",
  summary: "Read the whole list in insertion order, or part of it: the tasks after an id, in one state, in pages",
  description:
    "The tasks in the order they were added, which is id order, each exactly as every response shows it. The parameters combine: the tasks after `after` (new tasks, nothing of edits and deletions) whose completed is `completed`, at most `limit` of them. The ETag is the whole list's, whatever part is read, and changes with every change, so If-None-Match makes polling an unchanged list a 304.",
  parameters: [
    parameter("IfNoneMatch"),
    parameter("After"),
    {
      name: "completed",
      in: "query",
      required: false,
      description: "Only the tasks in this state. Anything but one `true` or `false` gets 400",
      schema: { type: "boolean" },
    },
    {
      name: "limit",
      in: "query",
      required: false,
      description: `At most this many tasks; while more remain, Link names the next page. Anything but one whole number from 1 to ${MAX_LIMIT}, without leading zeros, gets 400`,
      schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT },
    },
  ],
  responses: {
    "200": {
      description: "The list, or the part of it the query asks for",
      headers: {
        ETag: header("ETag"),
        "Cache-Control": header("CacheControl"),
        Link: {
          description:
            "Only when `limit` cut the page and more tasks fit the query: the next page, the same parameters with `after` set to this page's last id, on the path this request used",
          required: false,
          schema: { type: "string", pattern: '^<[^>]*\\?after=[0-9]+&limit=[0-9]+[^>]*>; rel="next"$' },
          example: '</tasks?after=2&limit=2&completed=false>; rel="next"',
        },
      },
      content: json({ type: "array", items: schema("Task") }, INITIAL_TASKS),
    },
    "304": response("NotModified"),
    "400": {
      description: `\`after\` is not a whole number of at most 15 digits, \`completed\` not one \`true\` or \`false\`, or \`limit\` not one whole number from 1 to ${MAX_LIMIT}`,
      content: {
        "application/json": {
          schema: schema("Error"),
          examples: {
            after: { value: { message: badCursor("after", "task id") } },
            completed: { value: { message: BAD_COMPLETED } },
            limit: { value: { message: badLimit(MAX_LIMIT) } },
          },
        },
      },
    },
    "503": response("StoreUnavailable"),
  },
};

function createTask(config: AppConfig) {
  return {
    operationId: "createTask",
    summary: "Append a task; its id is the last task's id plus 1",
    description:
      "With an Idempotency-Key the task is added once: the same request again returns the same task with Idempotent-Replayed: true, whatever happened between, even once the list is full. The key is remembered with the task in the same atomic step, for at least 24 hours unless MAX_IDEMPOTENCY_KEYS newer keys push it out; with write tokens, each token has keys of its own, and only its own newer keys push them out. A request that fails remembers nothing.",
    parameters: [parameter("IdempotencyKey")],
    requestBody: {
      required: true,
      description: `At most ${config.maxBodyBytes} bytes. A missing Content-Type is read as JSON. Fields other than title and completed (id included) are ignored.`,
      content: json(schema("NewTask"), { title: "Write the README", completed: false }),
    },
    responses: {
      "200": {
        description: "The created task, or with Idempotent-Replayed the task this key created before",
        headers: { "Idempotent-Replayed": header("IdempotentReplayed") },
        content: json(schema("Task"), { id: 3, title: "Write the README", completed: false }),
      },
      "400": {
        description:
          "The Idempotency-Key is malformed, or the body is not valid JSON, not an object, or a field is missing or of the wrong type, or title is not well-formed Unicode",
        content: {
          "application/json": {
            schema: schema("Error"),
            examples: {
              missing: { value: { message: MISSING_FIELD } },
              unpaired: { value: { message: TITLE_NOT_WELL_FORMED } },
              key: { value: { message: BAD_IDEMPOTENCY_KEY } },
            },
          },
        },
      },
      "408": errorResponse(
        `No byte of the body came for ${config.timeRules.bodySilenceMs / 1000} s`,
        bodyStalled(config.timeRules.bodySilenceMs / 1000),
      ),
      "409": errorResponse("A request with this Idempotency-Key is still being handled", KEY_IN_PROGRESS),
      "413": errorResponse("The body is larger than the limit", bodyTooLarge(config.maxBodyBytes)),
      "415": errorResponse("Content-Type is present and not JSON", NOT_JSON_TYPE),
      "422": errorResponse("This Idempotency-Key came before with another title or completed", KEY_REUSED),
      "503": response("StoreUnavailable"),
      "507": {
        description: `The list is full: it holds MAX_TASKS (${config.maxTasks}) tasks, or the task would take its JSON past MAX_LIST_BYTES (${config.maxListBytes} bytes)`,
        content: {
          "application/json": {
            schema: schema("Error"),
            examples: {
              tasks: { value: { message: fullOfTasks(config.maxTasks) } },
              bytes: { value: { message: fullOfBytes(config.maxListBytes) } },
            },
          },
        },
      },
    },
  };
}

/**
 * Says once, at the first response that shows the list's size, when the list already breaks a limit
 * (it was made before the limit was lowered): it is served as it is, and POSTs get 507.
 */
function limitCheck(config: AppConfig, logSink: LogSink): (usage: ListUsage) => void {
  let checked = !logShows(config.logLevel, "warn");
  return (usage) => {
    if (checked) return;
    checked = true;
    const warning = overLimitWarning(usage, listLimits(config));
    if (warning !== undefined) logSink.log(logEvent("warn", warning));
  };
}
