// How the OpenAPI document describes /lists/{name}/keys and /lists/{name}/keys/{id}.
import type { AppConfig } from "../config.ts";
import { MAX_LIST_KEYS } from "../list/list-keys.ts";
import {
  bodyStalled,
  bodyTooLarge,
  KEY_ACCESS,
  LIST_DELETED,
  NOT_FOUND,
  NOT_JSON_TYPE,
  tooManyKeys,
} from "../messages.ts";
import type { HeadOperation, Operation } from "../pages/openapi.ts";
import { errorResponse, header, json, response, schema } from "../pages/openapi-parts.ts";

const MISSING = {
  "404": errorResponse("No list was ever created under this name", NOT_FOUND),
  "410": errorResponse("The list was deleted, and its keys with it", LIST_DELETED),
};
const KEY = { id: "k3xq7m2pa4hz6w5n", access: "read", label: "Family", expires: null };

/** The operations of a list's keys, by purpose. */
export function keyOperations(config: AppConfig) {
  return {
    list: {
      operation: {
        operationId: "listKeys",
        summary: "The list's keys, oldest first, without the keys themselves",
        description:
          "Each key as {id, access, label, expires}. It tells who holds access, so it needs a deployment write token where WRITE_TOKENS is set; a list key gets 403.",
        responses: {
          "200": {
            description: "The list's keys",
            headers: { "Cache-Control": header("NoStore") },
            content: json({ type: "array", items: schema("ListKey") }, [KEY]),
          },
          ...MISSING,
          "503": response("StoreUnavailable"),
        },
      } satisfies Operation,
      head: { operationId: "headKeys", summary: "What GET returns, without the body" } satisfies HeadOperation,
    },
    create: {
      operationId: "createKey",
      summary: "Make a key that opens this list alone",
      description: `A read key reads the list, its tasks and its events; a write key also adds, changes and deletes tasks. The key is shown in this answer only: the service keeps its SHA-256. A list holds at most ${MAX_LIST_KEYS} keys.`,
      requestBody: { required: true, content: json(schema("NewListKey"), { access: "read", label: "Family" }) },
      responses: {
        "201": {
          description: "The key, with the key itself shown this once",
          headers: { Location: header("KeyLocation"), "Cache-Control": header("NoStore") },
          content: json(schema("CreatedListKey"), { ...KEY, key: "lk_q0dJd0hHNUtoT1k3dGZ4V3lQdWJ2Z0U2X3JzS3lDbWx" }),
        },
        "400": errorResponse(
          "The body is empty, not valid JSON or not a JSON object, or has a member other than access, label and expires, or one of them is not as described",
          KEY_ACCESS,
        ),
        ...MISSING,
        "408": errorResponse(
          `No byte of the body came for ${config.timeRules.bodySilenceMs / 1000} s`,
          bodyStalled(config.timeRules.bodySilenceMs / 1000),
        ),
        "413": errorResponse("The body is larger than the limit", bodyTooLarge(config.maxBodyBytes)),
        "415": errorResponse("Content-Type is present and not JSON", NOT_JSON_TYPE),
        "503": response("StoreUnavailable"),
        "507": errorResponse(`The list holds ${MAX_LIST_KEYS} keys already`, tooManyKeys(MAX_LIST_KEYS)),
      },
    } satisfies Operation,
    revoke: {
      operationId: "revokeKey",
      summary: "Revoke a key",
      description:
        "From this answer on the key opens nothing, in every process, and every subscription opened with it gets event revoked and ends.",
      responses: {
        "204": { description: "Revoked; no body" },
        "404": errorResponse(
          "The list holds no key with this id, or no list was ever created under this name",
          NOT_FOUND,
        ),
        "410": MISSING["410"],
        "503": response("StoreUnavailable"),
      },
    } satisfies Operation,
  };
}
