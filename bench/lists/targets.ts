// Issue 34's targets for many lists, checked against a run's medians: a named list costs what
// /tasks does, 1,000 lists cost GET /lists and a list's GET little and take little memory each,
// and two busy lists each keep most of one's rate on workerd with a Durable Object per list.
import type { Merged } from "../lib/results.ts";
import { RUNTIMES, type ServerKind } from "../lib/subjects.ts";
import type { TargetCheck } from "../lib/target-check.ts";
import { BUSY_SCENARIOS, type ListsReading, MANY_LISTS, PATH_SCENARIOS, TASKS_PER_LIST } from "./trial.ts";

const SAME_PATH = 0.95;
/** Issue 47: a PATCH costs what a POST does, "the same" with the bench's noise. */
const PATCH_RATIO = 0.9;
const MANY_RATIO = 0.9;
const KIB_PER_LIST = 16;
const BUSY_RATIO = 0.45;
const NAMES = { get: "GET", patch: "PATCH", post: "POST" } as const;

const n = (x: number) => x.toLocaleString("en");
const two = (x: number) => x.toFixed(2);
const rps = (x: number | undefined) => `${Math.round(x ?? 0).toLocaleString("en")}`;

/** The label of a lists subject in the targets: the runtime, and the store when it is not memory. */
export function listsSubjectLabel(row: { runtime: string; server: ServerKind }): string {
  return row.server === "app-durable" ? `${row.runtime}, Durable Object` : row.runtime;
}

/** Every target of issue 34's bench, for each runtime; "not measured" where the run lacked what it needs. */
export function checkListsTargets(lists: readonly Merged<ListsReading>[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const check = (
    target: string,
    subject: string,
    row: Merged<ListsReading> | undefined,
    value: number | undefined,
    ok: (v: number) => boolean,
    text: (v: number) => string,
    issue = "#34",
  ) =>
    checks.push({
      issue,
      target,
      subject,
      value: value === undefined ? `not measured${row?.notMeasured ? `: ${row.notMeasured}` : ""}` : text(value),
      met: value === undefined ? undefined : ok(value),
    });
  const over = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  const subjects = [
    ...RUNTIMES.map((runtime) => ({ runtime, server: "app" as const })),
    { runtime: "workerd" as const, server: "app-durable" as const },
  ];
  for (const subject of subjects) {
    const row = lists.find((r) => r.runtime === subject.runtime && r.server === subject.server);
    const label = listsSubjectLabel(subject);
    for (const scenario of PATH_SCENARIOS) {
      const [named, plain] = [row?.[`${scenario}NamedRps`], row?.[`${scenario}Rps`]];
      check(
        `${NAMES[scenario]} on /lists/{name}/tasks ≥ ${SAME_PATH} × on /tasks`,
        label,
        row,
        over(named, plain),
        (v) => v >= SAME_PATH,
        (v) => `${two(v)} × (${rps(named)} against ${rps(plain)} req/s)`,
      );
    }
    // Issue 47: a PATCH against the POST run seconds after it, on each list.
    for (const which of ["", "Named"] as const) {
      const [patch, post] = [row?.[`patch${which}Rps`], row?.[`post${which}Rps`]];
      check(
        `PATCH ÷ POST at 2 tasks on ${which === "" ? "/tasks" : "/lists/{name}/tasks"} ≥ ${PATCH_RATIO}`,
        label,
        row,
        over(patch, post),
        (v) => v >= PATCH_RATIO,
        (v) => `${two(v)} × (${rps(patch)} against ${rps(post)} req/s)`,
        "#47",
      );
    }
  }
  for (const runtime of RUNTIMES) {
    const row = lists.find((r) => r.runtime === runtime && r.server === "app");
    const many = `with ${n(MANY_LISTS)} lists of ${TASKS_PER_LIST} tasks`;
    for (const [what, one, all] of [
      ["GET /lists", row?.directoryOneRps, row?.directoryManyRps],
      ["GET of one list's tasks", row?.listOneRps, row?.listManyRps],
    ] as const) {
      check(
        `${what} ${many} ≥ ${MANY_RATIO} × with one list`,
        runtime,
        row,
        over(all, one),
        (v) => v >= MANY_RATIO,
        (v) => `${two(v)} × (${rps(all)} against ${rps(one)} req/s)`,
      );
    }
    check(
      `RSS per list of ${TASKS_PER_LIST} tasks ≤ ${KIB_PER_LIST} KiB over ${n(MANY_LISTS)} lists (memory)`,
      runtime,
      row,
      row?.kibPerList,
      (v) => v <= KIB_PER_LIST,
      (v) => `${v.toFixed(1)} KiB`,
    );
  }
  const durable = lists.find((r) => r.runtime === "workerd" && r.server === "app-durable");
  for (const scenario of BUSY_SCENARIOS) {
    const alone = durable?.[`${scenario}AloneRps`];
    const [first, second] = [durable?.[`${scenario}FirstRps`], durable?.[`${scenario}SecondRps`]];
    const slower = first === undefined || second === undefined ? undefined : Math.min(first, second);
    check(
      `Two busy lists on workerd serve: ${NAMES[scenario]} on each ≥ ${BUSY_RATIO} × one busy list alone`,
      "workerd, Durable Object",
      durable,
      over(slower, alone),
      (v) => v >= BUSY_RATIO,
      (v) => `${two(v)} × (${rps(first)} and ${rps(second)} against ${rps(alone)} req/s)`,
    );
  }
  return checks;
}
