// Every message the contract's responses carry, in one place: the handlers send them and the OpenAPI
// document shows them, so the two never drift apart.

/** The 400 for a POST that lacks `title` or `completed`; its text is fixed by the specification. */
export const MISSING_FIELD = "Title or completed status is missing";
export const NOT_AN_OBJECT = "Request body must be a JSON object with title and completed";
export const TITLE_NOT_STRING = "title must be a string";
/** The 400 for a title holding a lone half of a surrogate pair, which no UTF-8 text can carry. */
export const TITLE_NOT_WELL_FORMED = "title must be well-formed Unicode: remove the unpaired surrogate";
export const COMPLETED_NOT_BOOLEAN = "completed must be a boolean (true or false)";
export const EMPTY_BODY = "Request body is empty: send a JSON object with title and completed";
export const NOT_UTF8 = "Request body must be UTF-8 encoded JSON";
export const NOT_JSON = "Request body must be valid JSON";
export const BODY_CUT_OFF =
  "Request body ended before it was complete: send the whole body before closing the connection";
export const NOT_JSON_TYPE = "Content-Type must be application/json";
export const NOT_FOUND = "Not found";
export const INTERNAL_ERROR = "Internal server error";
/** The 503 of a store that cannot be reached; the response carries Retry-After. */
export const STORE_UNAVAILABLE = "Task list store cannot be reached: try again in a moment";
/** The 401 for a request without a bearer token. */
export const NO_TOKEN = "Request needs a bearer token: send Authorization: Bearer <token>";
/** The 401 for a bearer token the service does not know. */
export const UNKNOWN_TOKEN = "Bearer token is not valid: send a token this service was given";
/** The 403 for a read token on a POST. */
export const READ_ONLY = "This token may only read the list: send a token that may add tasks";

/** The 413 for a body over MAX_BODY_BYTES. */
export function bodyTooLarge(maxBodyBytes: number): string {
  return `Request body must be at most ${maxBodyBytes} bytes`;
}

/** The 408 for a body that went `seconds` without a byte before it was complete. */
export function bodyStalled(seconds: number): string {
  return `Request body stopped arriving: send the whole body without a pause of ${seconds} seconds`;
}

/** The 507 for a list that holds MAX_TASKS tasks. */
export function fullOfTasks(maxTasks: number): string {
  return `Task list is full: it holds the maximum of ${maxTasks} tasks`;
}

/** The 507 for a task that would take the list's JSON past MAX_LIST_BYTES. */
export function fullOfBytes(maxListBytes: number): string {
  return `Task list is full: this task would take the list past its limit of ${maxListBytes} bytes`;
}

/** The 400 for an Idempotency-Key that is not one. */
export const BAD_IDEMPOTENCY_KEY =
  "Idempotency-Key must be 1 to 255 visible ASCII characters: send a new random key, such as a UUID";
/** The 422 for an Idempotency-Key sent again with another task. */
export const KEY_REUSED = "This Idempotency-Key was sent with another task: send a new key for a new task";
/** The 409 for an Idempotency-Key whose first request is still being handled. */
export const KEY_IN_PROGRESS = "A request with this Idempotency-Key is still being answered: try again in a moment";

/**
 * The 400 for a cursor that is not a whole number: on `GET /tasks?after=N` a task id, on
 * `/tasks/events` (`after` or `Last-Event-ID`) a change number.
 */
export function badCursor(name: "after" | "Last-Event-ID", counts: "task id" | "change number"): string {
  const what =
    counts === "task id" ? "the id of the last task you have" : "the change number of the last event you have";
  return `${name} must be a whole number of at most 15 digits: ${what}`;
}

/** The 400 for a `completed` query parameter other than one `true` or `false`. */
export const BAD_COMPLETED = "completed must be true or false, given once: leave it out for tasks in both states";

/** The 400 for a `limit` query parameter other than one whole number from 1 to `max`. */
export function badLimit(max: number): string {
  return `limit must be a whole number from 1 to ${max} without leading zeros, given once: leave it out for every task`;
}

/** The 503 for a subscriber that comes while the server is stopping; the response carries Retry-After. */
export const STOPPING = "The server is stopping: connect again in a moment";

/** The 503 past MAX_SUBSCRIBERS; the response carries Retry-After. */
export const TOO_MANY_SUBSCRIBERS = "Too many subscribers are following the list: try again in a moment";

/** The 400 for a WebSocket handshake that lacks `header` as RFC 6455 asks for it. */
export function badHandshake(
  header: "Connection" | "Sec-WebSocket-Version" | "Sec-WebSocket-Key" | "Sec-WebSocket-Protocol",
): string {
  const wanted = {
    Connection: "Connection must include upgrade",
    "Sec-WebSocket-Version": "Sec-WebSocket-Version must be 13",
    "Sec-WebSocket-Key": "Sec-WebSocket-Key must be 16 bytes in base64",
    "Sec-WebSocket-Protocol": "Sec-WebSocket-Protocol must be a comma-separated list of tokens",
  }[header];
  return `${wanted} for a WebSocket: send a standard handshake, or no Upgrade header to get Server-Sent Events`;
}

/** The 400 for a WebSocket handshake the runtime refused although the service found nothing wrong with it. */
export const HANDSHAKE_REFUSED = "The WebSocket handshake was refused: send a standard RFC 6455 handshake";

/** The 410 for a task that was deleted; its id is never given again. */
export const TASK_DELETED = "This task was deleted: read the list for the tasks it holds now";
/** The 412 for an If-Match that names neither the task's current ETag nor `*`. */
export const STALE_IF_MATCH =
  "The task has changed since the ETag in If-Match: read it again and send its current ETag";
/** The 415 for a PATCH that is not a merge patch; the response carries Accept-Patch. */
export const NOT_PATCH_TYPE = "Content-Type must be application/merge-patch+json or application/json";
/** The 400 for a PATCH body that is not a JSON object. */
export const NOT_A_PATCH = "Request body must be a JSON object with title, completed or both";
/** The 400 for an empty PATCH body: a merge patch needs neither field, but it needs an object. */
export const EMPTY_PATCH = "Request body is empty: send a JSON object with title, completed or both";

/** The 410 for a list that was deleted, its tasks, their URLs and its events. */
export const LIST_DELETED = "This list was deleted: read /lists for the lists there are now";
/** The 400 for a list's title that is missing, null, not a string or too long. */
export const LIST_TITLE = "title must be a string of at most 200 characters";
/** The 400 for a list's body that is not a JSON object. */
export const NOT_A_LIST = "Request body must be a JSON object with title";
/** The 400 for an empty PUT or POST body of a list. */
export const EMPTY_LIST_BODY = "Request body is empty: send a JSON object with title";
/** The 412 for a list write whose If-Match or If-None-Match does not hold. */
export const STALE_LIST =
  "The list is not as If-Match or If-None-Match expects: read it again and send its current ETag";

/** The 507 for a list created past MAX_LISTS. */
export function tooManyLists(maxLists: number): string {
  return `There are ${maxLists} lists, the most MAX_LISTS allows: delete one or raise MAX_LISTS`;
}

/** The 501 for a list created or retitled by an app built over one store alone (`createApp({ store })`). */
export const LISTS_NOT_SUPPORTED =
  "This app was built over one list alone: build it over lists (createApp's lists option) to create and retitle lists";
/** The 422 for an Idempotency-Key sent again to /lists with another title. */
export const LIST_KEY_REUSED = "This Idempotency-Key was sent with another title: send a new key for a new list";

/** The 400 for a key's body that is not a JSON object. */
export const NOT_A_KEY = 'Request body must be a JSON object with access: "read" or "write"';
/** The 400 for an empty POST body of a key. */
export const EMPTY_KEY_BODY = 'Request body is empty: send a JSON object with access: "read" or "write"';
/** The 400 for a key's access that is missing or neither read nor write. */
export const KEY_ACCESS = 'access must be "read" or "write"';
/** The 400 for a key's label that is not a string of at most 100 characters. */
export const KEY_LABEL = "label must be a string of at most 100 characters";
/** The 400 for a key's expiry that is not an RFC 3339 date-time or null. */
export const KEY_EXPIRES = "expires must be an RFC 3339 date-time, such as 2030-01-31T12:00:00Z, or null for never";
/** The 400 for a key's expiry that has passed already. */
export const KEY_EXPIRES_PAST = "expires must be in the future: send a later date-time, or null for never";

/** The 400 for a key's body with a member the contract does not name. */
export function unknownKeyField(name: string): string {
  return `${JSON.stringify(name).slice(0, 40)} is not a field of a key: send only access, label and expires`;
}

/** The 507 for a key made past the keys a list may hold. */
export function tooManyKeys(maxKeys: number): string {
  return `The list has ${maxKeys} keys, the most it may hold: revoke one to make another`;
}

/** The 403 for a list key on a write its access does not allow. */
export const KEY_READ_ONLY = "This key may only read the list: send a key or token that may change tasks";
/** The 403 for a list key on its list's own writes or keys, which are the deployment's. */
export const KEY_NOT_FOR_LIST = "A list key opens the list's tasks only: send a deployment token to manage the list";
