// What the service does around every route's handler: start the request's context, turn what it
// throws into the contract's error response, add the common headers, and write the log line. It
// is one wrapper rather than a chain of Hono middleware (request-id, secure-headers, logger,
// onError) because that chain costs a small request a third of its time.
import type { Context, MiddlewareHandler } from "hono";
import { onError } from "./error-response.ts";
import {
  type AppEnv,
  type AppHandler,
  addCommonHeaders,
  type LogFields,
  type RequestState,
  type RuntimeOptions,
  requestStarter,
} from "./request-context.ts";

/** A request's log line. */
export interface RequestLog {
  /**
   * Reads the fields the line takes from the request, when it arrives: once its response is
   * made a request may be gone (Deno closes it when it becomes a WebSocket).
   */
  readonly fields?: (c: Context<AppEnv>) => LogFields;
  /** Writes the line once the response is made. */
  readonly write: (c: Context<AppEnv>, state: RequestState, res: Response) => void;
}

/**
 * The request wrapper: `wrap` puts it around a route's only handler, which keeps Hono on its
 * fastest path (one handler, no middleware, no promise unless the handler makes one);
 * `middleware` runs it as the first of several handlers.
 */
export function requestWrapper(
  log: RequestLog | undefined,
  options: RuntimeOptions = {},
): {
  wrap: (handler: AppHandler) => AppHandler;
  middleware: MiddlewareHandler<AppEnv>;
} {
  const start = requestStarter(options);
  const begin = (c: Context<AppEnv>): RequestState => start(c, log?.fields?.(c));
  const end = (c: Context<AppEnv>, state: RequestState, res: Response): Response => {
    addCommonHeaders(state, res);
    try {
      log?.write(c, state, res);
    } catch (error) {
      // A line that cannot be written must not change the response, least of all a WebSocket's.
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
