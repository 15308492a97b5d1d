// The service's log: one JSON line per request, with secrets a client sent kept out, and lines
// for what is not a request; servers gather lines into one write per timer turn.
import { HTTPException } from "hono/http-exception";
import { type LogLevel, logShows } from "../config.ts";
import { KEY_SHAPE } from "../list/list-keys.ts";
import type { RequestLog } from "./request-wrapper.ts";

/** Where log lines go; `console` by default, so Workers Logs, `wrangler tail` and container collectors see them. */
export interface LogSink {
  log(line: string): void;
  error(line: string): void;
}

/**
 * Makes the function that writes a request's JSON line when its level is at or above `level`:
 * time, request id, method, path, status, duration in ms and bytes sent, the list's name when the
 * request is about one, plus the error's name,
 * message and stack for a 500. Any of `secrets` a client put in what is logged (the path, query,
 * user agent or request id) is replaced by `[redacted]`, written plainly or percent-encoded, and so
 * is anything shaped like a list key.
 */
export function requestLogger(
  level: Exclude<LogLevel, "off">,
  sink: LogSink = console,
  secrets: readonly string[] = [],
): RequestLog {
  const hidden = secretPattern(secrets);
  // A list key is never known in advance: it is hidden by its shape.
  const hide = (text: string): string =>
    (hidden === undefined ? text : text.replace(hidden, "[redacted]")).replace(KEY_SHAPE, "[redacted]");
  const clock = isoClock();
  // Most requests of a server repeat the last one's method and path.
  const methodJson = lastJson();
  const pathJson = lastJson();
  const write: RequestLog["write"] = (c, state, res) => {
    const status = res.status;
    const lineLevel = status >= 500 ? "error" : status >= 400 ? "warn" : "info";
    if (!logShows(level, lineLevel)) return;
    const method = state.method;
    // A response the service made says its size; reading another's body would cost more than the log.
    const bytes =
      method === "HEAD" || status === 304
        ? 0
        : state.complete
          ? state.bytes
          : Number(res.headers.get("Content-Length") ?? 0);
    const durationMs = Math.round((performance.now() - state.start) * 1000) / 1000;
    const fields = state.logFields;
    // Field by field, so no object is built per request; each string a request gave goes through
    // jsonString, so nothing a client sends can end the line or add a field. The time and level are ours.
    let line = `{"time":"${clock()}","level":"${lineLevel}","requestId":${jsonString(hide(state.id))},"method":${methodJson(hide(method))},"path":${pathJson(hide(c.req.path))},"status":${status},"durationMs":${durationMs},"bytesOut":${Number.isFinite(bytes) ? bytes : 0}`;
    // A list's name is a DNS label: nothing in it needs escaping.
    if (state.list !== undefined) line += `,"list":"${state.list}"`;
    if (fields?.query !== undefined) line += `,"query":${jsonString(hide(fields.query))}`;
    if (fields?.userAgent !== undefined) line += `,"userAgent":${jsonString(hide(fields.userAgent))}`;
    // A contract's own error response (a 503 past MAX_SUBSCRIBERS) needs no stack; the unexpected does.
    if (c.error !== undefined && status >= 500 && !(c.error instanceof HTTPException)) {
      line += `,"error":${escapeSeparators(JSON.stringify(describe(c.error, hide)))}`;
    }
    line += "}";
    (lineLevel === "error" ? sink.error : sink.log).call(sink, line);
  };
  if (level !== "debug") return { write };
  return {
    fields: (c) => {
      const userAgent = c.req.header("User-Agent");
      return { query: new URL(c.req.url).search, userAgent };
    },
    write,
  };
}

/** Printable ASCII but `"` and `\`: a string of these is its own JSON between quotes. */
const PLAIN = /^[ !#-[\]-~]*$/;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * A string as JSON. Most of a line's strings need no escaping, and a pattern finds that out faster
 * than JSON.stringify escapes; U+2028 and U+2029, which JSON leaves as they are, are escaped too,
 * since JavaScript's own line splitting ends a line at each.
 */
export function jsonString(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : escapeSeparators(JSON.stringify(text));
}

function escapeSeparators(json: string): string {
  return json.replace(LINE_SEPARATORS, (separator) => (separator === "\u2028" ? "\\u2028" : "\\u2029"));
}

/**
 * A pattern that finds any of `secrets` however a client wrote it: each character as it is or
 * percent-encoded, in either case of hex digit (`+` as `+`, `%2B` or `%2b`). Undefined for none.
 */
function secretPattern(secrets: readonly string[]): RegExp | undefined {
  if (secrets.length === 0) return undefined;
  const character = (c: string) => {
    const hex = c.charCodeAt(0).toString(16).padStart(2, "0");
    const escaped = c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
    return `(?:${escaped}|%${[...hex].map((h) => (/[a-f]/.test(h) ? `[${h}${h.toUpperCase()}]` : h)).join("")})`;
  };
  // The longest first, so that a token that contains another is hidden whole.
  const sorted = [...new Set(secrets)].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map((secret) => [...secret].map(character).join("")).join("|"), "g");
}

/**
 * The time as an ISO string. A busy server asks many times a millisecond, and formatting a date
 * costs more than the rest of the line, so the date and time up to the second are formatted once
 * a second and each millisecond only adds its digits.
 */
function isoClock(): () => string {
  let last = 0;
  let text = "";
  let second = Number.NaN;
  let prefix = "";
  return () => {
    const now = Date.now();
    if (now === last) return text;
    last = now;
    const millisecond = now % 1000;
    if (now - millisecond !== second) {
      second = now - millisecond;
      // Up to and including the dot before the milliseconds, for years of any width.
      prefix = new Date(second).toISOString().slice(0, -4);
    }
    text = `${prefix}${millisecond < 10 ? "00" : millisecond < 100 ? "0" : ""}${millisecond}Z`;
    return text;
  };
}

/** {@link jsonString}, kept for the last string asked. */
function lastJson(): (text: string) => string {
  let last: string | undefined;
  let json = "";
  return (text) => {
    if (text !== last) {
      last = text;
      json = jsonString(text);
    }
    return json;
  };
}

/** A log line for something other than a request, such as a warning at start, in the request lines' JSON shape. */
export function logEvent(level: Exclude<LogLevel, "off">, message: string): string {
  return JSON.stringify({ time: new Date().toISOString(), level, message });
}

function describe(error: unknown, hide: (text: string) => string): { name: string; message: string; stack?: string } {
  if (!(error instanceof Error)) return { name: "Error", message: hide(String(error)) };
  return error.stack === undefined
    ? { name: error.name, message: hide(error.message) }
    : { name: error.name, message: hide(error.message), stack: hide(error.stack) };
}

/** A {@link LogSink} that writes what it holds now; see {@link batchedLogSink}. */
export interface BatchedLogSink extends LogSink {
  flush(): void;
}

/** Lines a batch holds at most before it is written, whatever the timer. */
export const MAX_BATCH_LINES = 64;

/**
 * Gathers request lines and hands them to `sink` as one multi-line write per timer turn, or per
 * {@link MAX_BATCH_LINES} lines, so a busy server pays for one write per batch instead of one per
 * request. Error lines go out at once. For servers that write to a stream; on Workers each
 * `console` call is one log event, so lines go there one by one. Call `flush` before the process exits.
 */
export function batchedLogSink(sink: LogSink): BatchedLogSink {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join("\n");
    pending = [];
    sink.log(text);
  };
  return {
    log(line) {
      pending.push(line);
      // A runtime busy with requests may run timers late; a bounded batch keeps memory flat.
      if (pending.length >= MAX_BATCH_LINES) {
        flush();
        return;
      }
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 0);
      }
    },
    error(line) {
      flush();
      sink.error(line);
    },
    flush,
  };
}
