import { createRequire } from "node:module";

/** Response headers as autocannon hands them to `onResponse`, names as the server wrote them. */
export type ResponseHeaders = Readonly<Record<string, string | string[]>>;

/** Per-connection state autocannon passes to a request's hooks; reset after each pass over the requests. */
export type ConnectionContext = Record<string, unknown>;

/** One request of the sequence each connection repeats. */
export interface LoadRequest {
  readonly method: "GET" | "POST" | "PUT";
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Builds the request just before it is sent, such as a POST body that differs every time. */
  readonly setupRequest?: (request: LoadRequest, context: ConnectionContext) => LoadRequest;
  readonly onResponse?: (status: number, body: string, context: ConnectionContext, headers: ResponseHeaders) => void;
}

/** What {@link runAutocannon} is given. */
export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  /** Seconds to keep the connections busy. */
  readonly duration: number;
  readonly requests: readonly LoadRequest[];
  /** Seconds one request may take before it counts as a timeout. */
  readonly timeout: number;
}

/** The part of autocannon's result the load test reads. */
export interface LoadResult {
  /** Seconds the run took. */
  readonly duration: number;
  /** Connection errors, timeouts included. */
  readonly errors: number;
  readonly timeouts: number;
  /** Connections the server reset. */
  readonly resets: number;
  readonly "5xx": number;
  readonly requests: { readonly total: number; readonly sent: number };
  readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>;
}

// autocannon is CommonJS and ships no types; it is loaded by require so that its shape is stated here once.
const autocannon = createRequire(import.meta.url)("autocannon") as (options: LoadOptions) => PromiseLike<LoadResult>;

/** Runs autocannon against a server with keep-alive connections and resolves with its result. */
export async function runAutocannon(options: LoadOptions): Promise<LoadResult> {
  return await autocannon(options);
}
