import type { MiddlewareHandler } from "hono";

/** How much the service logs: every request from `info` down, client errors at `warn`, server errors at `error`. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

/** The levels `LOG_LEVEL` accepts, the default first. */
export const LOG_LEVELS = ["info", "debug", "warn", "error", "off"] as const satisfies readonly LogLevel[];

const SEVERITY: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

/** Where log lines go; `console` by default, so Workers Logs, `wrangler tail` and container collectors see them. */
export interface LogSink {
  log(line: string): void;
  error(line: string): void;
}

/**
 * Writes one JSON line per request at or above `level`: time, request id, method, path, status,
 * duration in ms and bytes sent, plus the error's name, message and stack for a 500.
 */
export function requestLog(level: Exclude<LogLevel, "off">, sink: LogSink = console): MiddlewareHandler {
  const threshold = SEVERITY[level];
  return async (c, next) => {
    const start = performance.now();
    await next();
    const status = c.res.status;
    const lineLevel = status >= 500 ? "error" : status >= 400 ? "warn" : "info";
    if (SEVERITY[lineLevel] < threshold) return;
    const method = c.req.method;
    const noBody = method === "HEAD" || status === 304 || c.res.body === null;
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: lineLevel,
      requestId: c.get("requestId"),
      method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - start) * 1000) / 1000,
      bytesOut: noBody ? 0 : Number(c.res.headers.get("Content-Length") ?? Number.NaN),
    };
    if (level === "debug") {
      line.query = new URL(c.req.url).search;
      line.userAgent = c.req.header("User-Agent");
    }
    if (c.error !== undefined && status >= 500) line.error = describe(c.error);
    (lineLevel === "error" ? sink.error : sink.log).call(sink, JSON.stringify(line));
  };
}

function describe(error: unknown): { name: string; message: string; stack?: string } {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  return error.stack === undefined
    ? { name: error.name, message: error.message }
    : { name: error.name, message: error.message, stack: error.stack };
}
