import { describe, expect, test } from "vitest";
import { checkedAgainstOpenApi } from "../support/openapi-check.ts";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "./configured.ts";
import { describeConformance } from "./describe.ts";
import type { ConformanceOptions } from "./suite.ts";

/** Each request of the suite gets this long before it counts as hung. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Runs the conformance suite over HTTP against two real servers on `runtime`: one with the default
 * configuration, one with every setting moved (see {@link CONFIGURED_ENV}). Each server is started
 * before its cases and stopped after them; one that does not start fails every case, the first
 * with its log.
 */
export function describeRuntimeConformance(runtime: Runtime): void {
  describeServer(runtime, "default configuration", {}, { fresh: true });
  describeServer(runtime, "every setting configured", CONFIGURED_ENV, { ...CONFIGURED_OPTIONS, fresh: true });
}

function describeServer(
  runtime: Runtime,
  title: string,
  env: Readonly<Record<string, string>>,
  options: ConformanceOptions,
): void {
  // Every exchange must also be one the server's own OpenAPI document describes.
  const checkedFetch = checkedAgainstOpenApi(fetchWithTimeout, options.basePath);
  describe(`${runtime} server, ${title}`, () => {
    const server = useServer(runtime, env);
    test(`the ${runtime} server starts and answers`, () => {
      expect(server().baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });
    describeConformance(
      "conformance",
      () => ({ baseUrl: `${server().baseUrl}${options.basePath ?? ""}`, fetch: checkedFetch }),
      options,
    );
    test(`the ${runtime} server logs each request as one JSON object on a line of its own, with its request id`, async () => {
      const running = server();
      const requestId = `log-check-${crypto.randomUUID()}`;
      const path = `${options.basePath ?? ""}/tasks`;
      const res = await fetchWithTimeout(
        new Request(`${running.baseUrl}${path}`, { headers: { "X-Request-Id": requestId } }),
      );
      await res.arrayBuffer();
      expect(res.headers.get("X-Request-Id")).toBe(requestId);
      const line = await eventually(() =>
        running
          .output()
          .split("\n")
          .find((l) => l.includes(requestId)),
      );
      expect(JSON.parse(line)).toMatchObject({ level: "info", requestId, method: "GET", path, status: 200 });
    });
  });
}

/** Polls `read` until it returns a value: log lines reach the output a little after the answer. */
async function eventually<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Nothing appeared within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function fetchWithTimeout(request: Request): Promise<Response> {
  return fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}
