// Each request's context: its id, the common headers every response carries, and the helpers a
// handler makes its response with. A new header for every response goes in `respond`.
import type { Context } from "hono";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import type { ListKey } from "../list/list-keys.ts";

/** A body made of byte parts sent one after another, and its text when it keeps one. */
export interface BodyParts {
  readonly parts: readonly Uint8Array<ArrayBuffer>[];
  readonly byteLength: number;
  readonly text?: string;
}

/** What the service keeps of one request while handling it. */
export interface RequestState {
  /** The request's id: the client's X-Request-Id when it is a valid one, else a new one. */
  readonly id: string;
  /** `performance.now()` when the service took the request. */
  readonly start: number;
  /** Bytes of the response's body, as {@link respond} made it. */
  bytes: number;
  /** Whether {@link respond} made the response, so it already carries every common header. */
  complete: boolean;
  /** Whether fixed bodies go out as text, which the runtime's adapter sends fastest (see {@link RuntimeOptions}). */
  readonly text: boolean;
  /** The request's method, read when it arrived. */
  readonly method: string;
  /** Fields of the log line read from the request when it arrived, beyond its method and path. */
  readonly logFields: LogFields | undefined;
  /** The request's headers as the runtime parsed them, when it gives them (see {@link RuntimeOptions}). */
  readonly headers: ParsedHeaders | undefined;
  /** The name of the list the request is about, once its handler knows it; for the log line. */
  list: string | undefined;
  /** The list key the request came in with, once the token guard let it in. */
  key: ListKey | undefined;
}

/** Fields of a log line taken from the request, by name; one left undefined is left out. */
export type LogFields = Readonly<Record<string, string | undefined>>;

/** Request headers by lower-case name, each repeated header's values joined by ", ". */
export type ParsedHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** How responses are made on a given runtime. */
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

/** A handler that makes the response by itself, without calling on a next one. */
export type AppHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/** What Hono's request-id middleware keeps of a client's id: up to 255 of these characters. */
const CLIENT_ID = /^[\w=-]{1,255}$/;
const JSON_TYPE = "application/json";
/** Anything but printable ASCII, which JSON is made of unless it carries other characters. */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

/**
 * Makes the function that starts each request: its {@link RequestState}, with its id, kept as the
 * context's `requestState`.
 */
export function requestStarter({
  textBodies = false,
  parsedHeaders,
}: RuntimeOptions): (c: Context<AppEnv>, logFields: LogFields | undefined) => RequestState {
  const nextId = requestIds();
  return (c, logFields) => {
    const headers = parsedHeaders?.(c);
    const given = headerOf(c, headers, "x-request-id");
    const state: RequestState = {
      id: given !== undefined && CLIENT_ID.test(given) ? given : nextId(),
      start: performance.now(),
      bytes: 0,
      complete: false,
      text: textBodies,
      method: c.req.method,
      logFields,
      headers,
      list: undefined,
      key: undefined,
    };
    c.set("requestState", state);
    return state;
  };
}

/** Gives the common headers to a response made elsewhere (a CORS preflight, bearer-auth's 401). */
export function addCommonHeaders(state: RequestState, res: Response): void {
  if (state.complete) return;
  res.headers.set("X-Request-Id", state.id);
  res.headers.set("X-Content-Type-Options", "nosniff");
}

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
 * Responds 200 with `body` (JSON unless `contentType` says otherwise), sent as its text when the
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
 * A JSON response from its text, with any `extra` headers. It goes as text on every runtime: each
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
