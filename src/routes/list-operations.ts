// How the OpenAPI document describes /lists, /lists/default and /lists/{name}: an operation per method.
import type { AppConfig } from "../config.ts";
import {
  bodyStalled,
  bodyTooLarge,
  EMPTY_LIST_BODY,
  KEY_IN_PROGRESS,
  LIST_DELETED,
  LIST_KEY_REUSED,
  LIST_TITLE,
  NOT_FOUND,
  NOT_JSON_TYPE,
  NOT_PATCH_TYPE,
  STALE_LIST,
  tooManyLists,
} from "../messages.ts";
import { deleteResponses, type HeadOperation, type Operation } from "../pages/openapi.ts";
import { errorResponse, header, type Json, json, parameter, response, schema } from "../pages/openapi-parts.ts";

const LIST = json(schema("List"), { name: "groceries", title: "Groceries" });
const MISSING = { "404": errorResponse("No list was ever created under this name", NOT_FOUND) };
const GONE = { "410": errorResponse("The list was deleted: it and its tasks are gone", LIST_DELETED) };
const STALE = { "412": errorResponse("If-Match or If-None-Match does not hold for the list as it is", STALE_LIST) };
const TITLE_BODY = { required: true, content: json(schema("ListTitle"), { title: "Groceries" }) };
const IF_MATCH: Json = {
  name: "If-Match",
  in: "header",
  required: false,
  description: "The list's ETag as last read, or * (the list exists): the write applies only while it holds, else 412",
  schema: { type: "string" },
};
const IF_NONE_MATCH_STAR: Json = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "* to create only: a list that exists under the name gets 412",
  schema: { const: "*" },
};
const HEAD: HeadOperation = { operationId: "headList", summary: "What GET returns, without the body" };

/** The operations of the lists' paths, by purpose. */
export function listOperations(config: AppConfig) {
  const bodyFailures = {
    "400": errorResponse(
      "The body is not valid JSON or not a JSON object, or title is missing, null, not a string, longer than 200 characters or not well-formed Unicode",
      LIST_TITLE,
    ),
    "408": errorResponse(
      `No byte of the body came for ${config.timeRules.bodySilenceMs / 1000} s`,
      bodyStalled(config.timeRules.bodySilenceMs / 1000),
    ),
    "413": errorResponse("The body is larger than the limit", bodyTooLarge(config.maxBodyBytes)),
    "503": response("StoreUnavailable"),
  };
  const full = {
    "507": errorResponse(
      `MAX_LISTS (${config.maxLists}) lists exist already, the default one included`,
      tooManyLists(config.maxLists),
    ),
  };
  const json415 = { "415": errorResponse("Content-Type is present and not JSON", NOT_JSON_TYPE) };
  const get = (operationId: string, what: string): { operation: Operation; head: HeadOperation } => ({
    operation: {
      operationId,
      summary: `Read ${what}: its name and title`,
      description:
        "The list's strong ETag changes when it is retitled or made again. Its page for people is at the same path with a trailing slash, its tasks under it at tasks, tasks/{id} and tasks/events, each with the contract of /tasks.",
      parameters: [parameter("IfNoneMatch")],
      responses: {
        "200": {
          description: "The list",
          headers: { ETag: header("ETag"), "Cache-Control": header("CacheControl") },
          content: LIST,
        },
        "302": {
          description:
            "A browser (an Accept that prefers text/html) is sent to the list's page, whatever the list and the token",
          headers: { Location: header("PageLocation"), Vary: header("VaryAccept") },
        },
        "304": response("NotModified"),
        ...(operationId === "getList" ? { ...MISSING, ...GONE } : {}),
        "503": response("StoreUnavailable"),
      },
    },
    head: operationId === "getList" ? HEAD : { ...HEAD, operationId: "headDefaultList" },
  });
  const put = (operationId: string, creates: boolean): Operation => ({
    operationId,
    summary: creates ? "Create the list under this name, or replace its title" : "Replace the default list's title",
    description: creates
      ? "201 when the list is created (a deleted name too: it comes last in /lists, empty, its ids and change numbers continuing after the highest it gave), 200 when its title is replaced. If-None-Match: * creates only; If-Match writes only that version. Of many PUTs with If-None-Match: * at once, exactly one creates."
      : "The default list always exists: a PUT replaces its title.",
    parameters: creates ? [IF_MATCH, IF_NONE_MATCH_STAR] : [IF_MATCH],
    requestBody: TITLE_BODY,
    responses: {
      "200": { description: "The list, retitled", headers: { ETag: header("ETag") }, content: LIST },
      ...(creates
        ? {
            "201": {
              description: "The list, created",
              headers: { ETag: header("ETag"), Location: header("Location") },
              content: LIST,
            },
          }
        : {}),
      ...STALE,
      ...json415,
      ...bodyFailures,
      ...(creates ? full : {}),
    },
  });
  const patch = (operationId: string, named: boolean): Operation => ({
    operationId,
    summary: "Change the list's title with a JSON merge patch",
    description: "Members other than title are ignored; {} is valid and changes nothing.",
    parameters: [IF_MATCH],
    requestBody: {
      required: true,
      content: {
        "application/merge-patch+json": { schema: schema("ListPatch"), example: { title: "Groceries" } },
        "application/json": { schema: schema("ListPatch") },
      },
    },
    responses: {
      "200": { description: "The list as it now is", headers: { ETag: header("ETag") }, content: LIST },
      ...(named ? { ...MISSING, ...GONE } : {}),
      ...STALE,
      "415": {
        ...errorResponse("Content-Type is neither a merge patch nor JSON", NOT_PATCH_TYPE),
        headers: { "Accept-Patch": header("AcceptPatch") },
      },
      ...bodyFailures,
      "400": errorResponse(
        "The body is empty, not valid JSON or not a JSON object, or title is null, not a string, longer than 200 characters or not well-formed Unicode",
        LIST_TITLE,
      ),
    },
  });
  return {
    directory: {
      operation: {
        operationId: "listLists",
        summary: "The lists that exist, in the order they were created, default first",
        description:
          "Each list as {name, title}. The ETag changes when a list is created, retitled or deleted, not when its tasks change, so If-None-Match makes polling the lists a 304.",
        parameters: [parameter("IfNoneMatch")],
        responses: {
          "200": {
            description: "The lists",
            headers: { ETag: header("ETag"), "Cache-Control": header("CacheControl") },
            content: json({ type: "array", items: schema("List") }, [{ name: "default", title: "Tasks" }]),
          },
          "304": response("NotModified"),
          "503": response("StoreUnavailable"),
        },
      } satisfies Operation,
      head: { operationId: "headLists", summary: "What GET returns, without the body" },
    },
    create: {
      operationId: "createList",
      summary: "Create a list with a new random name",
      description:
        "The name is 26 characters with 130 bits of randomness, so nobody guesses it. The list starts empty: its first task gets id 1. With an Idempotency-Key the list is created once: the same request again returns it with Idempotent-Replayed: true.",
      parameters: [parameter("IdempotencyKey")],
      requestBody: TITLE_BODY,
      responses: {
        "201": {
          description: "The created list, or with Idempotent-Replayed the list this key created before",
          headers: { Location: header("Location"), "Idempotent-Replayed": header("IdempotentReplayed") },
          content: LIST,
        },
        ...bodyFailures,
        "400": errorResponse(
          "The Idempotency-Key is malformed, or the body is empty, not valid JSON or not a JSON object, or title is missing, null, not a string, longer than 200 characters or not well-formed Unicode",
          EMPTY_LIST_BODY,
        ),
        "409": errorResponse("A request with this Idempotency-Key is still being handled", KEY_IN_PROGRESS),
        ...json415,
        "422": errorResponse("This Idempotency-Key came before with another title", LIST_KEY_REUSED),
        ...full,
      },
    } satisfies Operation,
    get: get("getList", "a list"),
    getDefault: get("getDefaultList", "the default list"),
    put: put("putList", true),
    putDefault: put("putDefaultList", false),
    patch: patch("updateList", true),
    patchDefault: patch("updateDefaultList", false),
    remove: {
      operationId: "deleteList",
      summary: "Delete the list and its tasks",
      description:
        "Its subscribers get event gone and their streams end; its tasks, their URLs and its events answer 410. The name may be created again. With If-Match, only while the list is that version. The default list cannot be deleted: 405.",
      parameters: [IF_MATCH],
      responses: deleteResponses(MISSING, GONE, STALE),
    } satisfies Operation,
  };
}
