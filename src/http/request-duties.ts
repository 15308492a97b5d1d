// What the service does for every request, whatever its route: an id, the contract's answer to
// any error, the common headers, one log line. It is one wrapper around a route's handler rather
// than a chain of Hono middleware (request-id, secure-headers, logger, onError) because that chain
// costs a small request a third of its time; Hono stays on its fastest path (one handler, no
// promise unless the handler makes one). A new header for every answer goes in `answer`; a new
// log field goes in request-log.ts; routes and their checks belong in src/routes/.
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import { ApiError, StoreUnavailableError } from "../errors.ts";
import { INTERNAL_ERROR, STORE_UNAVAILABLE } from "../messages.ts";

/** A body made of byte parts sent one after another, and its text when it keeps one. */
export interface BodyParts {
  readonly parts: readonly Uint8Array<ArrayBuffer>[];
  readonly byteLength: number;
  readonly text?: string;
}

/** What the service keeps of one request while answering it. */
export interface RequestState {
  /** The request's id: the client's X-Request-Id when it is a valid one, else a new one. */
  readonly id: string;
  /** `performance.now()` when the service took the request. */
  readonly start: number;
  /** Bytes of the answer's body, as {@link answer} made it. */
  bytes: number;
  /** Whether {@link answer} made the answer, so it already carries every common header. */
  complete: boolean;
  /** Whether fixed bodies go out as text, which the runtime's adapter sends fastest (see {@link RuntimeOptions}). */
  readonly text: boolean;
  /** The request's method, read when it arrived. */
  readonly method: string;
  /** What the log line needs of the request beyond its path, read when it arrived (see {@link RequestLog}). */
  readonly detail: string;
  /** The request's headers as the runtime parsed them, when it gives them (see {@link RuntimeOptions}). */
  readonly headers: ParsedHeaders | undefined;
}

/** Request headers by lower-case name, each repeated header's values joined by ", ". */
export type ParsedHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** How the duties answer on a given runtime. */
export interface RuntimeOptions {
  /**
   * Send fixed bodies as text rather than bytes: Node's HTTP server writes a text body in the same
   * write as the head, and bytes in a second one; Deno copies bytes into each Response, and takes
   * a string as it is. Other runtimes send bytes as they are.
   */
  readonly textBodies?: boolean;
  /**
   * The request's headers as the runtime parsed them, when it keeps them so (Node): a header read
   * there is a property read, where the Request's Headers check its name and value on each read.
   */
  readonly parsedHeaders?: ((c: Context) => ParsedHeaders | undefined) | undefined;
}

/** The app's context variables: each request's {@link RequestState}. */
export type AppEnv = { Variables: { requestState: RequestState } };

/** A handler that answers by itself, without calling on a next one. */
export type AppHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/** A request's log line. */
export interface RequestLog {
  /**
   * Reads what the line needs of the request, when it arrives: once answered a request may be
   * gone (Deno closes it when it becomes a WebSocket).
   */
  readonly detail?: (c: Context<AppEnv>) => string;
  /** Writes the line once the request is answered. */
  readonly write: (c: Context<AppEnv>, state: RequestState, res: Response) => void;
}

const encoder = new TextEncoder();
/** What Hono's request-id middleware keeps of a client's id: up to 255 of these characters. */
const CLIENT_ID = /^[\w=-]{1,255}$/;
const JSON_TYPE = "application/json";
/** Anything but printable ASCII, which JSON is made of unless it carries other characters. */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

/**
 * Makes a response with every header given at once, the common ones included, so that each
 * runtime's adapter can send it as it is (on Node, without building a Headers object). A fixed
 * body's length is left to the runtime, which knows it; a stream's, and HEAD's, are stated, unless
 * `bytes` is null: a stream that goes on for as long as the client reads (events).
 */
export function respond(
  c: Context<AppEnv>,
  status: StatusCode,
  body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null,
  headers: Record<string, string>,
  bytes: number | null = 0,
): Response {
  const state = c.get("requestState");
  state.bytes = bytes ?? 0;
  state.complete = true;
  headers["X-Request-Id"] = state.id;
  headers["X-Content-Type-Options"] = "nosniff";
  // A stream of unknown length (events) goes on for as long as the client reads.
  if (bytes !== null && body !== null && (body instanceof ReadableStream || c.req.method === "HEAD")) {
    headers["Content-Length"] = String(bytes);
  }
  return new Response(body, { status, headers });
}

/**
 * Answers 200 with `body` (JSON unless `contentType` says otherwise), sent as its text when the
 * runtime prefers text and the body offers it, else as its bytes: one part as it is, or a stream
 * of its parts, never copied.
 */
export function bytesResponse(
  c: Context<AppEnv>,
  body: BodyParts,
  headers: Record<string, string>,
  contentType = JSON_TYPE,
): Response {
  headers["Content-Type"] = contentType;
  const sent = body.text !== undefined && c.get("requestState").text ? body.text : bodyOf(body);
  return respond(c, 200, sent, headers, body.byteLength);
}

/**
 * A JSON answer from its text, with any `extra` headers. It goes as text on every runtime: each
 * takes a string body as it is, and encoding it here first would copy it once more.
 */
export function jsonResponse(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  text: string,
  extra?: Record<string, string>,
): Response {
  const headers = extra === undefined ? { "Content-Type": JSON_TYPE } : { ...extra, "Content-Type": JSON_TYPE };
  return respond(c, status, text, headers, utf8Length(text));
}

/**
 * A request header, by its lower-case name, from the headers the runtime parsed when it gave them,
 * else from the Request. Not for headers a runtime may keep only the first of when repeated (Node
 * does so for Content-Type, among others), where the Request joins them all; Node refuses a
 * repeated Content-Length before the service sees it.
 */
export function requestHeader(c: Context<AppEnv>, name: string): string | undefined {
  return headerOf(c, c.get("requestState").headers, name);
}

function headerOf(c: Context, parsed: ParsedHeaders | undefined, name: string): string | undefined {
  if (parsed === undefined) return c.req.header(name);
  const value = parsed[name];
  return typeof value === "string" ? value : undefined;
}

/** Bytes of `text` in UTF-8; its lone surrogates, which JSON.stringify never leaves, are not counted apart. */
export function utf8Length(text: string): number {
  // Most JSON is printable ASCII, one byte a character: a pattern finds out faster than a loop on V8.
  if (!NOT_PRINTABLE_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Each half of a surrogate pair counts 2, making the pair's 4.
    if (code >= 0x80) bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/**
 * The contract's answer to an error: its own status and message, 503 with Retry-After for a store
 * that cannot be reached, or a bare 500 for anything unexpected.
 */
export function onError(error: Error, c: Context<AppEnv>): Response {
  // Hono's own middleware (bearer-auth) throws with the answer already made.
  if (error instanceof HTTPException && error.res !== undefined) return error.getResponse();
  if (error instanceof HTTPException && error.status !== 500) {
    // Every 503 says when to try again; a 408 leaves the rest of its body unread, so the connection ends.
    const extra: Record<string, string> =
      error.status === 503 ? { "Retry-After": "1" } : error.status === 408 ? { Connection: "close" } : {};
    if (error instanceof ApiError) Object.assign(extra, error.headers);
    return jsonResponse(c, error.status, JSON.stringify({ message: error.message }), extra);
  }
  if (error instanceof StoreUnavailableError) {
    return jsonResponse(c, 503, JSON.stringify({ message: STORE_UNAVAILABLE }), { "Retry-After": "1" });
  }
  return jsonResponse(c, 500, JSON.stringify({ message: INTERNAL_ERROR }));
}

/**
 * The contract's error answer outside the duties, for Hono middleware that wants a Response of
 * its own (bearer-auth): `{"message": ...}` as JSON, with its length.
 */
export function errorResponse(status: ContentfulStatusCode, message: string): Response {
  const body = encoder.encode(JSON.stringify({ message }));
  return new Response(body, {
    status,
    headers: { "Content-Type": JSON_TYPE, "Content-Length": String(body.byteLength) },
  });
}

/** A body as the runtime takes it: its one part as it is, or a stream of its parts, never copied. */
function bodyOf({ parts }: BodyParts): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  const [only] = parts;
  if (parts.length === 1 && only !== undefined) return only;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
  });
}

/**
 * What the service does for every request, whatever its route: give it an id, answer any error as
 * the contract says, mark the answer `nosniff`, and log it. `wrap` does it around a route's only
 * handler, which keeps Hono on its fastest path (one handler, no middleware, no promise unless the
 * handler makes one); `middleware` does it as the first of several handlers.
 */
export function requestWrapper(
  log: RequestLog | undefined,
  { textBodies = false, parsedHeaders }: RuntimeOptions = {},
): {
  wrap: (handler: AppHandler) => AppHandler;
  middleware: MiddlewareHandler<AppEnv>;
} {
  const nextId = requestIds();
  const begin = (c: Context<AppEnv>): RequestState => {
    const headers = parsedHeaders?.(c);
    const given = headerOf(c, headers, "x-request-id");
    const id = given !== undefined && CLIENT_ID.test(given) ? given : nextId();
    const state: RequestState = {
      id,
      start: performance.now(),
      bytes: 0,
      complete: false,
      text: textBodies,
      method: c.req.method,
      detail: log?.detail?.(c) ?? "",
      headers,
    };
    c.set("requestState", state);
    return state;
  };
  const end = (c: Context<AppEnv>, state: RequestState, res: Response): Response => {
    // Answers made elsewhere (a CORS preflight, bearer-auth's 401) get the common headers here.
    if (!state.complete) {
      res.headers.set("X-Request-Id", state.id);
      res.headers.set("X-Content-Type-Options", "nosniff");
    }
    try {
      log?.write(c, state, res);
    } catch (error) {
      // A line that cannot be written must not change the answer, least of all a WebSocket's.
      console.error(error);
    }
    return res;
  };
  const fail = (c: Context<AppEnv>, error: unknown): Response => {
    // Hono hands only Error instances to onError, so any other thrown value is made one here.
    c.error = error instanceof Error ? error : new Error(`Non-Error value thrown: ${String(error)}`);
    return onError(c.error, c);
  };
  return {
    wrap: (handler) => (c) => {
      const state = begin(c);
      let res: Response | Promise<Response>;
      try {
        res = handler(c);
      } catch (error) {
        return end(c, state, fail(c, error));
      }
      if (!(res instanceof Promise)) return end(c, state, res);
      return res.then(
        (done) => end(c, state, done),
        (error: unknown) => end(c, state, fail(c, error)),
      );
    },
    middleware: async (c, next) => {
      const state = begin(c);
      try {
        await next();
      } catch (error) {
        c.res = fail(c, error);
      }
      end(c, state, c.res);
    },
  };
}

/**
 * Request ids: a random prefix per isolate or process, then a counter. Unique across a fleet
 * without a random draw per request; the prefix is made on first use, since Workers refuse random
 * values at start-up.
 */
function requestIds(): () => string {
  let prefix: string | undefined;
  let count = 0;
  return () => {
    prefix ??= `${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}-`;
    count += 1;
    return `${prefix}${count.toString(36)}`;
  };
}
