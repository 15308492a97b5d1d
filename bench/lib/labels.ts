import type { Scenario } from "./measurements.ts";
import { RUNTIMES, type Runtime, type ServerKind } from "./servers.ts";

/** How tables and the chart name each scenario. */
export const SCENARIO_LABELS: Record<Scenario, string> = {
  get: "GET",
  "conditional-get": "GET If-None-Match (304)",
  "get-edited": "GET after 1,000 edits",
  "conditional-get-edited": "GET If-None-Match (304) after 1,000 edits",
  "read-after-change": "POST, then GET (read after change)",
  "read-after-change-304": "POST, then GET If-None-Match: * (304 after change)",
  patch: "PATCH",
  post: "POST",
  "post-key": "POST with Idempotency-Key",
};

/** How tables and the chart name each server. */
export const SERVER_LABELS: Record<ServerKind, string> = {
  app: "service",
  "app-logoff": "service, LOG_LEVEL=off",
  "app-postgres": "service, PostgreSQL",
  "app-durable": "service, Durable Object",
  ceiling: "ceiling",
  hono: "plain Hono",
  fastify: "Fastify",
};

const SERVER_ORDER: readonly ServerKind[] = [
  "ceiling",
  "app",
  "app-durable",
  "app-logoff",
  "app-postgres",
  "hono",
  "fastify",
];
const SCENARIO_ORDER: readonly Scenario[] = [
  "get",
  "conditional-get",
  "get-edited",
  "conditional-get-edited",
  "read-after-change",
  "read-after-change-304",
  "patch",
  "post",
  "post-key",
];

/** Orders rows by runtime, server (ceiling first), scenario and list size. */
export function compareRows(
  a: { runtime: Runtime; server: ServerKind; scenario?: Scenario; tasks: number },
  b: { runtime: Runtime; server: ServerKind; scenario?: Scenario; tasks: number },
): number {
  return (
    RUNTIMES.indexOf(a.runtime) - RUNTIMES.indexOf(b.runtime) ||
    SERVER_ORDER.indexOf(a.server) - SERVER_ORDER.indexOf(b.server) ||
    (a.scenario === undefined || b.scenario === undefined
      ? 0
      : SCENARIO_ORDER.indexOf(a.scenario) - SCENARIO_ORDER.indexOf(b.scenario)) ||
    a.tasks - b.tasks
  );
}
