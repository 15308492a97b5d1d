// How the OpenAPI document describes /tasks/{id}: its path parameter and an operation per method.
import type { AppConfig } from "../config.ts";
import { INITIAL_TASKS } from "../list/task.ts";
import {
  bodyStalled,
  bodyTooLarge,
  COMPLETED_NOT_BOOLEAN,
  EMPTY_PATCH,
  fullOfBytes,
  MISSING_FIELD,
  NOT_A_PATCH,
  NOT_FOUND,
  NOT_JSON_TYPE,
  NOT_PATCH_TYPE,
  STALE_IF_MATCH,
  TASK_DELETED,
  TITLE_NOT_STRING,
  TITLE_NOT_WELL_FORMED,
} from "../messages.ts";
import { deleteResponses, type HeadOperation, type Operation } from "../pages/openapi.ts";
import { errorResponse, header, type Json, json, parameter, response, schema } from "../pages/openapi-parts.ts";

/** The task's id, as the list writes it. */
export const TASK_ID_PARAMETER: Json = {
  name: "id",
  in: "path",
  required: true,
  description: "The task's id: 1 to 15 digits, no leading zero; anything else gets 404",
  schema: { type: "integer", minimum: 1, maximum: 999_999_999_999_999 },
};

const IF_MATCH: Json = {
  name: "If-Match",
  in: "header",
  required: false,
  description:
    "The task's ETag as the client last read it, or *: the write applies only while the task is still that version (strong comparison), else 412",
  schema: { type: "string" },
};

const TASK_BODY = json(schema("Task"), INITIAL_TASKS[1]);
const MISSING = { "404": errorResponse("No task was ever given this id", NOT_FOUND) };
const GONE = { "410": errorResponse("The task was deleted; its id is never given again", TASK_DELETED) };
const STALE = { "412": errorResponse("If-Match names neither the task's ETag nor *", STALE_IF_MATCH) };

/** The operations of /tasks/{id}, by method. */
export function taskOperations(config: AppConfig): {
  GET: { operation: Operation; head: HeadOperation };
  PATCH: Operation;
  PUT: Operation;
  DELETE: Operation;
} {
  const writeFailures = {
    ...MISSING,
    ...GONE,
    ...STALE,
    "408": errorResponse(
      `No byte of the body came for ${config.timeRules.bodySilenceMs / 1000} s`,
      bodyStalled(config.timeRules.bodySilenceMs / 1000),
    ),
    "413": errorResponse("The body is larger than the limit", bodyTooLarge(config.maxBodyBytes)),
    "503": response("StoreUnavailable"),
    "507": errorResponse(
      `The new title would take the list's JSON past MAX_LIST_BYTES (${config.maxListBytes} bytes)`,
      fullOfBytes(config.maxListBytes),
    ),
  };
  const invalid = (description: string, examples: Record<string, string>): Json => ({
    description,
    content: {
      "application/json": {
        schema: schema("Error"),
        examples: Object.fromEntries(Object.entries(examples).map(([name, message]) => [name, { value: { message } }])),
      },
    },
  });
  return {
    GET: {
      operation: {
        operationId: "getTask",
        summary: "Read one task, exactly as the list serves it, with its own ETag",
        description:
          "The task's JSON, byte for byte as the list serves it. Its strong ETag changes whenever the task changes and never names another task or another version: send it in If-Match to write that version only.",
        parameters: [parameter("IfNoneMatch")],
        responses: {
          "200": {
            description: "The task",
            headers: {
              ETag: header("ETag"),
              "Cache-Control": header("CacheControl"),
              "Accept-Patch": header("AcceptPatch"),
            },
            content: TASK_BODY,
          },
          "304": response("NotModified"),
          ...MISSING,
          ...GONE,
          "503": response("StoreUnavailable"),
        },
      },
      head: { operationId: "headTask", summary: "What GET returns, without the body" },
    },
    PATCH: {
      operationId: "updateTask",
      summary: "Change a task's title, completed or both with a JSON merge patch",
      description:
        "Members other than title and completed (id included) are ignored; {} is valid. A patch that changes nothing is no change: no event, and the list's ETag stays.",
      parameters: [IF_MATCH],
      requestBody: {
        required: true,
        content: {
          "application/merge-patch+json": { schema: schema("TaskPatch"), example: { completed: true } },
          "application/json": { schema: schema("TaskPatch") },
        },
      },
      responses: {
        "200": { description: "The task as it now is", headers: { ETag: header("ETag") }, content: TASK_BODY },
        "400": invalid(
          "The body is empty, not valid JSON or not a JSON object, or title or completed is null or of the wrong type, or title is not well-formed Unicode",
          {
            empty: EMPTY_PATCH,
            object: NOT_A_PATCH,
            title: TITLE_NOT_STRING,
            unpaired: TITLE_NOT_WELL_FORMED,
            completed: COMPLETED_NOT_BOOLEAN,
          },
        ),
        "415": {
          ...errorResponse("Content-Type is neither a merge patch nor JSON", NOT_PATCH_TYPE),
          headers: { "Accept-Patch": header("AcceptPatch") },
        },
        ...writeFailures,
      },
    },
    PUT: {
      operationId: "replaceTask",
      summary: "Replace a task's title and completed; never creates a task",
      description: "The body follows POST's rules. The response carries no ETag: the stored task is not what was sent.",
      parameters: [IF_MATCH],
      requestBody: { required: true, content: json(schema("NewTask"), { title: "Write the README", completed: true }) },
      responses: {
        "200": { description: "The task as it now is", content: TASK_BODY },
        "400": invalid(
          "The body is not valid JSON, not an object, or a field is missing or of the wrong type, or title is not well-formed Unicode",
          { missing: MISSING_FIELD, title: TITLE_NOT_STRING, unpaired: TITLE_NOT_WELL_FORMED },
        ),
        "415": errorResponse("Content-Type is present and not JSON", NOT_JSON_TYPE),
        ...writeFailures,
      },
    },
    DELETE: {
      operationId: "deleteTask",
      summary: "Delete a task; its id is never given again",
      description:
        "The task leaves the list and frees room under its limits; an Idempotency-Key that created it still replays it. With If-Match, only while the task is still that version.",
      parameters: [IF_MATCH],
      responses: deleteResponses(MISSING, GONE, STALE),
    },
  };
}
