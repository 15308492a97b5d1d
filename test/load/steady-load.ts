import type { RunningServer, Runtime } from "../support/server.ts";
import type { LoadRequest } from "./autocannon.ts";
import { CONNECTIONS, measuredRun, type RunFigures } from "./measured-run.ts";
import { StatusLog } from "./status-log.ts";

const JSON_TYPE = { "Content-Type": "application/json" };

/** What one run of {@link runSteadyLoad} did and found. */
export interface SteadyFigures extends RunFigures {
  /** Whether the list's bytes were the same after the run as before it. */
  readonly listUnchanged: boolean;
}

async function currentList(server: RunningServer): Promise<{ text: string; etag: string }> {
  const res = await fetch(`${server.baseUrl}/tasks`);
  return { text: await res.text(), etag: res.headers.get("ETag") ?? "" };
}

/**
 * Drives `server` for `seconds` (after a short warm-up) with requests that change nothing: POSTs
 * refused for each reason, conditional GETs of the unchanged list, another method, an unknown
 * path and the OpenAPI document (autocannon cannot read answers to HEAD, so HEAD is left out). With the list fixed, memory that grows across the run is held
 * per request: a leak.
 */
export async function runSteadyLoad(server: RunningServer, runtime: Runtime, seconds: number): Promise<SteadyFigures> {
  const before = await currentList(server);
  const log = new StatusLog();
  const expecting = (kind: string, status: number, request: LoadRequest): LoadRequest => ({
    ...request,
    onResponse: (received, body) => {
      log.record(kind, received, body, received === status);
    },
  });
  const requests = [
    expecting("POST of invalid JSON", 400, { method: "POST", path: "/tasks", headers: JSON_TYPE, body: '{"title":' }),
    expecting("POST of a number title", 400, {
      method: "POST",
      path: "/index.php",
      headers: JSON_TYPE,
      body: '{"title":5,"completed":true}',
    }),
    expecting("POST of text", 415, {
      method: "POST",
      path: "/tasks",
      headers: { "Content-Type": "text/plain" },
      body: '{"title":"Not JSON typed","completed":true}',
    }),
    expecting("conditional GET", 304, { method: "GET", path: "/tasks", headers: { "If-None-Match": before.etag } }),
    expecting("PUT", 405, { method: "PUT", path: "/tasks", headers: JSON_TYPE, body: "{}" }),
    expecting("GET of an unknown path", 404, { method: "GET", path: "/nowhere" }),
    expecting("GET of the OpenAPI document", 200, { method: "GET", path: "/openapi.json" }),
  ];
  const figures = await measuredRun(server, runtime, seconds, requests, log);
  const after = await currentList(server);
  return { ...figures, listUnchanged: after.text === before.text && after.etag === before.etag };
}

/** A few lines of figures for the log and the README. */
export function describeSteadyFigures(figures: SteadyFigures, memoryBoundKib: number | undefined): string {
  const mib = (kib: number) => (kib / 1024).toFixed(1);
  const statuses = Object.entries(figures.statuses)
    .map(([key, count]) => `${key}: ${count}`)
    .join(", ");
  const bound = memoryBoundKib === undefined ? "not bounded, see the test" : `bound +${mib(memoryBoundKib)} MiB`;
  return [
    `${figures.runtime}, requests that change nothing: ${figures.requests} requests in ${figures.seconds} s over ${CONNECTIONS} keep-alive connections`,
    `  statuses (warm-up included): ${statuses}`,
    `  connection errors ${figures.connectionErrors}, 5xx ${figures.serverErrors}, unexpected answers ${figures.unexpected.length}, list unchanged ${figures.listUnchanged}`,
    `  memory ${mib(figures.memoryBeforeKib)} -> ${mib(figures.memoryAfterKib)} MiB (${bound})`,
  ].join("\n");
}
