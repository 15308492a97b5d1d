// One trial of the lists scenario (issue 34) on one server: a named list against /tasks; 1,000
// lists of 10 tasks against one (lists in memory); two busy lists against one (a Durable Object each).
import { settledMemoryKib } from "../../test/support/process-memory.ts";
import type { WrkLoad, WrkScript } from "../lib/load.ts";
import type { BenchServer } from "../lib/servers.ts";
import { type ListsSubject, type Runtime, runtimeOf, type ServerKind, serverOf } from "../lib/subjects.ts";
import { NEW_TASK_BODY, type RunSettings, startSubject } from "../lib/trial.ts";
import {
  createFilledLists,
  createList,
  measureRate,
  namedTasksUrl,
  originOf,
  postEach,
  ratesTogether,
} from "./requests.ts";

/** The requests compared on a named list and on /tasks. */
export const PATH_SCENARIOS = ["get", "patch", "post"] as const;
export type PathScenario = (typeof PATH_SCENARIOS)[number];
/** The requests of the busy lists. */
export const BUSY_SCENARIOS = ["get", "post"] as const;
export type BusyScenario = (typeof BUSY_SCENARIOS)[number];

/** Req/s and server CPU µs per request of each request on /tasks, and on a named list (`Named`). */
type PathFigures = Record<`${PathScenario}${"" | "Named"}${"Rps" | "CpuUs"}`, number | undefined>;
/** Req/s of each busy list's request: one list alone, then each of two at once. */
type BusyFigures = Record<`${BusyScenario}${"Alone" | "First" | "Second"}Rps`, number | undefined>;

/** What one lists trial measured; undefined where this server does not measure it. Ratios are left to the medians. */
export interface ListsReading extends PathFigures, BusyFigures {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  /** Why nothing was measured, such as a store that holds the default list only; undefined when measured. */
  readonly notMeasured: string | undefined;
  /** Named lists of the many-lists part, and tasks in each. */
  readonly lists: number | undefined;
  readonly tasksPerList: number | undefined;
  /** GET /lists and a GET of one list's tasks, with one named list, then with all of them. */
  readonly directoryOneRps: number | undefined;
  readonly directoryManyRps: number | undefined;
  readonly directoryManyBytes: number | undefined;
  readonly listOneRps: number | undefined;
  readonly listManyRps: number | undefined;
  /** Resident memory with one named list, then with all, and the growth per list created between. */
  readonly rssBeforeKib: number | undefined;
  readonly rssAfterKib: number | undefined;
  readonly kibPerList: number | undefined;
}

/** Lists and tasks of the many-lists part: the 1,000 lists of 10 tasks. */
export const MANY_LISTS = 1_000;
export const TASKS_PER_LIST = 10;
/** How long the memory is watched before each reading, its lowest kept. */
const SETTLE_MS = 2_000;
/** The initial tasks of /tasks, POSTed to a named list so that both answer the same bytes. */
export const INITIAL_BODIES = [
  '{"title":"Read the task list specification","completed":true}',
  '{"title":"Build the task list service","completed":false}',
];
const UNSUPPORTED = "the store answers 501 to a new list";

const EMPTY: Omit<ListsReading, "runtime" | "server" | "notMeasured"> = {
  getRps: undefined,
  getCpuUs: undefined,
  getNamedRps: undefined,
  getNamedCpuUs: undefined,
  patchRps: undefined,
  patchCpuUs: undefined,
  patchNamedRps: undefined,
  patchNamedCpuUs: undefined,
  postRps: undefined,
  postCpuUs: undefined,
  postNamedRps: undefined,
  postNamedCpuUs: undefined,
  getAloneRps: undefined,
  getFirstRps: undefined,
  getSecondRps: undefined,
  postAloneRps: undefined,
  postFirstRps: undefined,
  postSecondRps: undefined,
  lists: undefined,
  tasksPerList: undefined,
  directoryOneRps: undefined,
  directoryManyRps: undefined,
  directoryManyBytes: undefined,
  listOneRps: undefined,
  listManyRps: undefined,
  rssBeforeKib: undefined,
  rssAfterKib: undefined,
  kibPerList: undefined,
};

/**
 * One trial of `subject`: a fresh server for a named list against /tasks (and, on the Durable
 * Object, two busy lists against one); with lists in memory, two fresh ones, one list against
 * 1,000. Odd repeats start with /tasks and GET /lists of one list, even ones with the named list
 * and of 1,000; each request after runs the other way round from the one before it.
 */
export async function runListsTrial(subject: ListsSubject, repeat: number, run: RunSettings): Promise<ListsReading> {
  const runtime = runtimeOf(subject);
  const server = serverOf(subject);
  let reading: ListsReading = { runtime, server, notMeasured: undefined, ...EMPTY };
  const app = await startSubject(server, runtime, run);
  try {
    const origin = originOf(app.url);
    if ((await createList(origin, "bench", "Bench list")) === 501) return { ...reading, notMeasured: UNSUPPORTED };
    await postEach(namedTasksUrl(origin, "bench"), INITIAL_BODIES);
    reading = { ...reading, ...(await namedAgainstDefault(app, repeat % 2 === 0, run)) };
    if (server === "app-durable") reading = { ...reading, ...(await busyLists(app, run)) };
  } finally {
    await app.stop();
  }
  if (server !== "app") return reading;
  // MAX_LISTS counts the default list.
  const settings = { ...run, env: { ...run.env, MAX_LISTS: String(MANY_LISTS + 1) } };
  const servers: BenchServer[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startSubject("app", runtime, settings));
    const [one, many] = servers as [BenchServer, BenchServer];
    return { ...reading, ...(await manyLists(one, many, repeat % 2 === 0, run)) };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

function load(url: string, script: WrkScript, run: RunSettings, env: Record<string, string> = {}): WrkLoad {
  return { url, script, seconds: run.seconds, threads: run.threads, connections: run.connections, env };
}

/** Warms `urls` with GETs for the run's warm-up seconds each, so that the runtime has compiled their paths. */
async function warm(server: BenchServer, urls: readonly string[], run: RunSettings): Promise<void> {
  for (const url of urls)
    await measureRate(server.pid, { ...load(url, "get", run), seconds: run.warmSeconds }, run.layout);
}

/** GET, PATCH and POST on /tasks and on the named list `bench`, each pair seconds apart. */
async function namedAgainstDefault(app: BenchServer, namedFirst: boolean, run: RunSettings): Promise<PathFigures> {
  const named = namedTasksUrl(originOf(app.url), "bench");
  const order: [string, "" | "Named"][] = [
    [app.url, ""],
    [named, "Named"],
  ];
  if (namedFirst) order.reverse();
  await warm(app, [app.url, named], run);
  const figures: Partial<Record<keyof PathFigures, number>> = {};
  // The POSTs last: they add thousands of tasks, and the PATCH edits the two both lists start with.
  const env: Record<PathScenario, Record<string, string>> = {
    get: {},
    patch: { BENCH_TASKS: "2" },
    post: { BENCH_BODY: NEW_TASK_BODY },
  };
  for (const scenario of PATH_SCENARIOS) {
    for (const [url, which] of order) {
      const { rps, cpuUs } = await measureRate(app.pid, load(url, scenario, run, env[scenario]), run.layout);
      figures[`${scenario}${which}Rps`] = rps;
      figures[`${scenario}${which}CpuUs`] = cpuUs;
    }
    // Each request the other way round from the one before, so that neither list always runs first.
    order.reverse();
  }
  return { ...EMPTY, ...figures };
}

/** GET and POST on one list alone, then on two lists at once, each with the connections one had alone. */
async function busyLists(app: BenchServer, run: RunSettings): Promise<BusyFigures> {
  const origin = originOf(app.url);
  const [first, second] = ["busy-one", "busy-two"].map((name) => namedTasksUrl(origin, name)) as [string, string];
  for (const name of ["busy-one", "busy-two"]) {
    if ((await createList(origin, name, "Busy list")) === 501) throw new Error(`PUT /lists/${name} answered 501`);
  }
  for (const url of [first, second]) await postEach(url, INITIAL_BODIES);
  await warm(app, [first, second], run);
  const figures: Partial<Record<keyof BusyFigures, number>> = {};
  for (const scenario of BUSY_SCENARIOS) {
    const env: Record<string, string> = scenario === "post" ? { BENCH_BODY: NEW_TASK_BODY } : {};
    figures[`${scenario}AloneRps`] = (await measureRate(app.pid, load(first, scenario, run, env), run.layout)).rps;
    const [a, b] = await ratesTogether([load(first, scenario, run, env), load(second, scenario, run, env)], run.layout);
    figures[`${scenario}FirstRps`] = a;
    figures[`${scenario}SecondRps`] = b;
  }
  // Its own figures only: the trial's reading already holds the named list's against /tasks.
  return figures as BusyFigures;
}

/**
 * GET /lists and GET of a list's tasks on a server with that one list against a server with 1,000
 * lists of 10 tasks, created through the API; the second server's resident memory read warmed up
 * with one list and again with all of them. Both servers are warmed alike, and each request is
 * measured on one, then on the other, seconds apart: GET /lists on the many-lists server first
 * when `manyFirst`, the list's GET the other way round.
 */
async function manyLists(
  one: BenchServer,
  many: BenchServer,
  manyFirst: boolean,
  run: RunSettings,
): Promise<Partial<ListsReading>> {
  const names = Array.from({ length: MANY_LISTS }, (_, i) => `bench-${String(i + 1).padStart(4, "0")}`);
  const first = names.slice(0, 1);
  const urls = (server: BenchServer) => {
    const at = originOf(server.url);
    return { directory: `${at}/lists`, list: namedTasksUrl(at, first[0] ?? "") };
  };
  for (const server of [one, many]) {
    await createFilledLists(originOf(server.url), first, NEW_TASK_BODY, TASKS_PER_LIST);
    await warm(server, Object.values(urls(server)), run);
  }
  const rssBeforeKib = await settledMemoryKib(() => many.memoryKib(), SETTLE_MS);
  const origin = originOf(many.url);
  await createFilledLists(origin, names.slice(1), NEW_TASK_BODY, TASKS_PER_LIST);
  const rssAfterKib = await settledMemoryKib(() => many.memoryKib(), SETTLE_MS);
  const text = await (await fetch(`${origin}/lists`)).text();
  const listed = (JSON.parse(text) as unknown[]).length;
  if (listed !== MANY_LISTS + 1) throw new Error(`GET /lists listed ${listed} lists, not ${MANY_LISTS + 1}`);
  // Both again, so that each has run as many GETs: the many-lists server's /lists has changed.
  for (const server of [one, many]) await warm(server, Object.values(urls(server)), run);
  const rates = async (which: "directory" | "list", manyFirst: boolean) => {
    const rate = async (server: BenchServer) =>
      (await measureRate(server.pid, load(urls(server)[which], "get", run), run.layout)).rps;
    if (!manyFirst) return [await rate(one), await rate(many)] as const;
    const manyRps = await rate(many);
    return [await rate(one), manyRps] as const;
  };
  const [directoryOneRps, directoryManyRps] = await rates("directory", manyFirst);
  const [listOneRps, listManyRps] = await rates("list", !manyFirst);
  return {
    lists: MANY_LISTS,
    tasksPerList: TASKS_PER_LIST,
    directoryOneRps,
    directoryManyRps,
    directoryManyBytes: new TextEncoder().encode(text).byteLength,
    listOneRps,
    listManyRps,
    rssBeforeKib,
    rssAfterKib,
    kibPerList: (rssAfterKib - rssBeforeKib) / (MANY_LISTS - 1),
  };
}
