// The lists scenario's tables in results.md: a named list against /tasks, 1,000 lists against one,
// and two busy lists against one. bench/README.md says what each figure means.

import type { Merged } from "../lib/results.ts";
import { RUNTIMES } from "../lib/subjects.ts";
import { table } from "../lib/table.ts";
import { listsSubjectLabel } from "./targets.ts";
import { BUSY_SCENARIOS, type ListsReading, PATH_SCENARIOS } from "./trial.ts";

type Row = Merged<ListsReading>;
const int = (x: number | undefined) => (x === undefined ? "–" : Math.round(x).toLocaleString("en"));
const dec = (digits: number) => (x: number | undefined) => (x === undefined ? "–" : x.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined) =>
  dec(2)(a === undefined || b === undefined ? undefined : a / b);
const mib = (kib: number | undefined) => (kib === undefined ? "–" : (kib / 1024).toFixed(1));

/** The tables of the lists scenario, runtime by runtime, and the servers that measured nothing, with why. */
export function listsTables(lists: readonly Row[]): string {
  const rows = [...lists].sort(
    (a, b) => RUNTIMES.indexOf(a.runtime) - RUNTIMES.indexOf(b.runtime) || a.server.localeCompare(b.server),
  );
  const measured = rows.filter((r) => r.notMeasured === undefined);
  const paths = measured.flatMap((row) => PATH_SCENARIOS.map((scenario) => ({ row, scenario })));
  const named = table(
    paths,
    [
      ["Runtime", ({ row }) => listsSubjectLabel(row)],
      ["Request", ({ scenario }) => scenario.toUpperCase()],
      ["/tasks req/s", ({ row, scenario }) => int(row[`${scenario}Rps`])],
      ["named req/s", ({ row, scenario }) => int(row[`${scenario}NamedRps`])],
      ["× /tasks", ({ row, scenario }) => ratio(row[`${scenario}NamedRps`], row[`${scenario}Rps`])],
      ["/tasks CPU µs/req", ({ row, scenario }) => dec(1)(row[`${scenario}CpuUs`])],
      ["named CPU µs/req", ({ row, scenario }) => dec(1)(row[`${scenario}NamedCpuUs`])],
      ["trials", ({ row }) => int(row.trials)],
    ],
    2,
  );
  const manyRows = measured.filter((r) => r.lists !== undefined);
  const many = table(
    manyRows,
    [
      ["Runtime", (r) => r.runtime],
      ["Lists", (r) => `${int(r.lists)} × ${int(r.tasksPerList)} tasks`],
      ["GET /lists req/s, one list", (r) => int(r.directoryOneRps)],
      ["all lists", (r) => int(r.directoryManyRps)],
      ["/lists ×", (r) => ratio(r.directoryManyRps, r.directoryOneRps)],
      ["/lists KiB", (r) => dec(1)((r.directoryManyBytes ?? 0) / 1024)],
      ["GET a list req/s, one list", (r) => int(r.listOneRps)],
      ["all lists", (r) => int(r.listManyRps)],
      ["list ×", (r) => ratio(r.listManyRps, r.listOneRps)],
      ["RSS MiB, one list", (r) => mib(r.rssBeforeKib)],
      ["all lists", (r) => mib(r.rssAfterKib)],
      ["KiB/list", (r) => dec(1)(r.kibPerList)],
    ],
    2,
  );
  const busyRows = measured.flatMap((row) =>
    row.getAloneRps === undefined ? [] : BUSY_SCENARIOS.map((scenario) => ({ row, scenario })),
  );
  const busy = table(
    busyRows,
    [
      ["Runtime", ({ row }) => listsSubjectLabel(row)],
      ["Request", ({ scenario }) => scenario.toUpperCase()],
      ["one list alone req/s", ({ row, scenario }) => int(row[`${scenario}AloneRps`])],
      ["first of two", ({ row, scenario }) => int(row[`${scenario}FirstRps`])],
      ["second of two", ({ row, scenario }) => int(row[`${scenario}SecondRps`])],
      [
        "slower × alone",
        ({ row, scenario }) => {
          const [a, b] = [row[`${scenario}FirstRps`], row[`${scenario}SecondRps`]];
          return ratio(a === undefined || b === undefined ? undefined : Math.min(a, b), row[`${scenario}AloneRps`]);
        },
      ],
    ],
    2,
  );
  const skipped = rows
    .filter((r) => r.notMeasured !== undefined)
    .map((r) => `- ${listsSubjectLabel(r)}: not measured, ${r.notMeasured}.`);
  return [
    paths.length === 0 ? "" : `## Lists: a named list against /tasks\n\n${named}`,
    manyRows.length === 0 ? "" : `## Lists: ${int(manyRows[0]?.lists)} lists against one\n\n${many}`,
    busyRows.length === 0 ? "" : `## Lists: two busy lists against one\n\n${busy}`,
    skipped.length === 0 ? "" : `## Lists not measured\n\n${skipped.join("\n")}`,
  ]
    .filter((s) => s !== "")
    .join("\n\n");
}
