import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { SCENARIO_LABELS } from "./labels.ts";
import { READ_AFTER_CHANGE } from "./measurements.ts";
import type { Row } from "./summary.ts";

/**
 * Draws requests per second against list size, one panel per runtime (and one for Fastify), as SVG.
 * The service with LOG_LEVEL=off is left out: it is measured at one size only; so are the reads
 * after a change, pairs of two kinds of requests that have their own table.
 */
export async function drawChart(rows: readonly Row[]): Promise<string> {
  const series = (r: Row) =>
    r.server === "ceiling"
      ? `ceiling ${SCENARIO_LABELS[r.scenario]}`
      : r.server === "hono"
        ? `plain Hono ${SCENARIO_LABELS[r.scenario]}`
        : r.server === "app-postgres"
          ? `PostgreSQL ${SCENARIO_LABELS[r.scenario]}`
          : r.server === "app-durable"
            ? `Durable Object ${SCENARIO_LABELS[r.scenario]}`
            : SCENARIO_LABELS[r.scenario];
  const values = rows
    .filter((r) => r.server !== "app-logoff" && !READ_AFTER_CHANGE.includes(r.scenario))
    .map((r) => ({
      panel: r.server === "fastify" ? "Fastify (node)" : r.runtime,
      series: series(r),
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
