import { beforeAll, expect, test } from "vitest";
import { requestHead } from "../load/http.ts";
import { parseResponses, RawConnection } from "../load/raw-http.ts";
import { describeAlongside } from "../support/describe-alongside.ts";
import { eventually } from "../support/eventually.ts";
import { checkedAgainstOpenApi } from "../support/openapi-check.ts";
import { type Runtime, startServer } from "../support/server.ts";
import { expectNonZeroExit, startFailure, useServer } from "../support/server-fixture.ts";
import { timeScaled } from "../support/time-scale.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS, CONFIGURED_TOKENS } from "./configured.ts";
import { describeConformance } from "./describe.ts";
import { fetchReadingEarlyAnswers } from "./early-answer-fetch.ts";
import { describeHostileSockets, describeVanishedSubscriber, type SocketTarget } from "./hostile-sockets.ts";
import { createNamedList, NAMED_LIST_PATH } from "./named-list.ts";
import { type ConformanceOptions, serverCases } from "./suite.ts";

/**
 * What a pings' and keep-alives' wait takes on the suite's servers: a tenth, pings 2 s apart, so a
 * subscriber that answers none is dropped in seconds; a body may then go a second without a byte,
 * far more than a client sending a whole body at once pauses on a busy machine.
 */
const SERVER_TIME_SCALE = 0.1;

/**
 * The conformance suite's part that only a real server shows (see {@link serverCases}; the whole
 * suite runs in-process on every store), on one server on `runtime` with every setting moved but
 * MAX_BODY_BYTES, kept at its default so that a body of a MiB crosses the runtime: tokens, CORS, the
 * base path, a debug log. Then the same server's log lines, its early 401, hostile handshakes and
 * frames, and (but on Workers, which cannot ping) a subscriber that vanished. The server is started
 * before its cases and stopped after them; one that does not start fails every case, the first with its log.
 */
export function describeRuntimeConformance(runtime: Runtime): void {
  const workerd = runtime === "workerd";
  // Node, Bun and Deno as their npm scripts run them; the Worker as deployed on `workerd serve`,
  // with the memory store and the Worker's own WebSockets (test/sqlite's Durable Object server meets
  // the object's; wrangler dev, as `npm start` runs it, has a refusal below).
  const { MAX_BODY_BYTES: _moved, ...env } = CONFIGURED_ENV;
  const { maxBodyBytes: _limit, ...configured } = CONFIGURED_OPTIONS;
  const options: ConformanceOptions = { ...configured, fresh: true, sockets: true, worker: workerd };
  describeServer(runtime, { ...env, ...timeScaled(SERVER_TIME_SCALE) }, options);
  // Node, Bun and Deno refusing a setting at start: test/conformance/settings-errors.test.ts.
  if (workerd) describeWranglerDev();
}

/**
 * `npm start`, wrangler dev as a person runs it: what it says at start, offline as on this machine.
 * The Worker reads its settings with the code the servers use, each refusal unit-tested there and in
 * workerd (test/workers/worker-app.test.ts): one token refusal through wrangler dev's command line
 * shows that it stops at start without showing the token.
 */
function describeWranglerDev(): void {
  describeAlongside("workerd server through npm start", () => {
    test("npm start says where the lists live and how to keep them, and nothing of a request.cf lookup a machine offline cannot make", async () => {
      const running = await startServer("workerd", {}, { cli: true });
      try {
        const output = running.output();
        expect(output).toContain(
          "Lists are kept in this isolate's memory and lost when it stops: run with --env durable (npm start -- --env durable, npm run deploy) to keep them",
        );
        expect(output).not.toMatch(/Request\.cf|ENOTFOUND|Error/);
      } finally {
        await running.stop();
      }
    });
  });
  describeAlongside("workerd server with a setting it cannot use", () => {
    test("WRITE_TOKENS with a token it cannot take stops wrangler dev at start, saying which token, never showing it", async () => {
      const value = "short-secret-1";
      const message = await startFailure("workerd", { WRITE_TOKENS: value });
      expectNonZeroExit(message);
      expect(message).toContain("WRITE_TOKENS must be a comma-separated list of tokens");
      expect(message).toContain("token 1 of 1 has 14 characters before any = padding");
      expect(message).not.toContain(value);
    });
  });
}

function describeServer(runtime: Runtime, env: Readonly<Record<string, string>>, options: ConformanceOptions): void {
  // Every exchange must also be one the server's own OpenAPI document describes.
  const checkedFetch = checkedAgainstOpenApi(fetchReadingEarlyAnswers, options.basePath);
  describeAlongside(`${runtime} server, every setting configured but MAX_BODY_BYTES`, () => {
    const server = useServer(runtime, env);
    test(`the ${runtime} server starts and answers`, () => {
      expect(server().baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });
    test(`the ${runtime} server says at start that its lists live in memory, lost when it stops, and how to keep them`, () => {
      expect(server().output()).toContain(
        runtime === "workerd"
          ? "Lists are kept in this isolate's memory and lost when it stops: run with --env durable"
          : "Lists are kept in this process's memory and lost when it stops: set TASK_STORE=sqlite or TASK_STORE=postgres",
      );
    });
    describeConformance(
      "conformance",
      () => ({ baseUrl: `${server().baseUrl}${options.basePath ?? ""}`, fetch: checkedFetch }),
      options,
      serverCases(options),
    );
    const tokens = options.tokens;
    if (tokens === undefined) throw new Error("The suite's servers run with READ_TOKENS and WRITE_TOKENS");
    // A named list crosses the same adapter under /lists/{name}: the same cases, its paths.
    const named = { ...options, fresh: false, listPath: NAMED_LIST_PATH };
    beforeAll(() => createNamedList(fetch, `${server().baseUrl}${options.basePath ?? ""}`, tokens.write));
    describeConformance(
      "conformance on a named list",
      () => ({ baseUrl: `${server().baseUrl}${options.basePath ?? ""}`, fetch: checkedFetch }),
      named,
      serverCases(named),
    );
    test(`the ${runtime} server logs each request as one JSON object on a line of its own, with its request id`, async () => {
      const running = server();
      const requestId = `log-check-${crypto.randomUUID()}`;
      const path = `${options.basePath ?? ""}/tasks`;
      const authorization = { Authorization: `Bearer ${tokens.read}` };
      const res = await fetchReadingEarlyAnswers(
        new Request(`${running.baseUrl}${path}`, { headers: { "X-Request-Id": requestId, ...authorization } }),
      );
      await res.arrayBuffer();
      expect(res.headers.get("X-Request-Id")).toBe(requestId);
      const line = await eventually(() => logLine(running.output(), requestId));
      expect(line).toMatchObject({ level: "info", requestId, method: "GET", path, status: 200 });
    });
    const sockets: SocketTarget = {
      basePath: options.basePath ?? "",
      token: tokens.read,
      maxSubscribers: options.maxSubscribers ?? 1,
    };
    describeHostileSockets(runtime, server, sockets);

    test(`the ${runtime} server returns 401 to a POST without a token before the client sends its body`, async () => {
      const running = server();
      const requestId = `early-401-${crypto.randomUUID()}`;
      const connection = new RawConnection(running.baseUrl);
      await connection.connected;
      // A million bytes announced, ten sent: the response can only come from a server that does not wait for them.
      await connection.write(
        `${requestHead("POST", `${options.basePath ?? ""}/tasks`, {
          "Content-Type": "application/json",
          "Content-Length": "1000000",
          "X-Request-Id": requestId,
        })}{"title":`,
      );
      try {
        const line = await eventually(() => logLine(running.output(), requestId));
        expect(line).toMatchObject({ method: "POST", status: 401 });
        const res = await eventually(() => parseResponses(connection.received)[0]);
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tasks"');
      } finally {
        connection.destroy();
      }
    });

    test(`no token appears in the ${runtime} server's log, at debug, even one a client put in the path, query or user agent`, async () => {
      const running = server();
      const base = `${running.baseUrl}${options.basePath ?? ""}`;
      const marker = `token-check-${crypto.randomUUID()}`;
      for (const url of [`${base}/tasks?access_token=${tokens.write}`, `${base}/${tokens.read}`]) {
        const res = await fetchReadingEarlyAnswers(
          new Request(url, { headers: { "X-Request-Id": marker, "User-Agent": `agent/${tokens.read}` } }),
        );
        await res.arrayBuffer();
      }
      await eventually(() => (running.output().split(marker).length > 2 ? true : undefined));
      const output = running.output();
      expect(output).toContain("[redacted]");
      for (const token of CONFIGURED_TOKENS) expect(output).not.toContain(token);
    });

    // Last, as they hold every subscriber slot. Workers cannot ping a WebSocket: docs/live-changes.md
    // says what the platform does instead.
    if (runtime !== "workerd") describeVanishedSubscriber(server, sockets, SERVER_TIME_SCALE);
  });
}

/** The service's JSON log line for the request with this id, if it has been written. */
function logLine(output: string, requestId: string): Record<string, unknown> | undefined {
  const line = output.split("\n").find((l) => l.startsWith("{") && l.includes(`"requestId":"${requestId}"`));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}
