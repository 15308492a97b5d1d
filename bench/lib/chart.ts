// results.md's chart, rps-by-tasks.svg: requests per second against list size, drawn with Vega-Lite.
import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { Results } from "./results.ts";
import { READ_AFTER_CHANGE, SCENARIOS } from "./subjects.ts";

/** How the legend names a server's lines, before the scenario: nothing for the service in memory. */
const SERIES: Partial<Record<string, string>> = {
  ceiling: "ceiling ",
  hono: "plain Hono ",
  "app-postgres": "PostgreSQL ",
  "app-durable": "Durable Object ",
};

/**
 * Draws requests per second against list size, one panel per runtime (and one for Fastify), as SVG.
 * The service with LOG_LEVEL=off is left out: it is measured at one size only; so are the reads
 * after a change, pairs of two kinds of requests.
 */
export async function drawChart(rows: Results["rows"]): Promise<string> {
  const values = rows
    .filter((r) => r.server !== "app-logoff" && !READ_AFTER_CHANGE.includes(r.scenario))
    .map((r) => ({
      panel: r.server === "fastify" ? "Fastify (node)" : r.runtime,
      series: `${SERIES[r.server] ?? ""}${SCENARIOS[r.scenario]}`,
      tasks: r.tasks,
      rps: Math.round(r.requestsPerSecond),
    }));
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "Requests per second against tasks in the list (median of trials)",
    data: { values },
    facet: { column: { field: "panel", type: "nominal", title: null, sort: ["node", "bun", "deno", "workerd"] } },
    spec: {
      width: 180,
      height: 220,
      mark: { type: "line", point: true },
      encoding: {
        x: {
          field: "tasks",
          type: "quantitative",
          scale: { type: "log" },
          axis: { values: [...new Set(rows.map((r) => r.tasks))], format: "~s" },
          title: "tasks in the list",
        },
        y: { field: "rps", type: "quantitative", scale: { type: "log" }, title: "requests per second" },
        color: { field: "series", type: "nominal", title: null },
        strokeDash: { field: "series", type: "nominal", title: null },
        tooltip: [{ field: "series" }, { field: "tasks" }, { field: "rps" }],
      },
    },
    resolve: { scale: { y: "shared" } },
    config: { legend: { orient: "bottom", labelLimit: 0 } },
  };
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
