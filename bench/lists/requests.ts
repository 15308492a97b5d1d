// What the lists scenario asks of a server beside the measured load: lists created and filled
// through the API, and wrk runs read as a rate that counts only clean answers.
import { type CpuLayout, measureRun, runWrk, tasksetList, type WrkLoad } from "../lib/load.ts";

const JSON_BODY = { "Content-Type": "application/json" } as const;

/** The origin of a bench server, from its /tasks URL. */
export function originOf(tasksUrl: string): string {
  return tasksUrl.replace(/\/tasks$/, "");
}

/** The tasks URL of the list named `name`. */
export function namedTasksUrl(origin: string, name: string): string {
  return `${origin}/lists/${name}/tasks`;
}

/** The headers of a JSON body, with `authorization` as the Authorization header when given. */
function jsonHeaders(authorization: string | undefined): Record<string, string> {
  return authorization === undefined ? JSON_BODY : { ...JSON_BODY, Authorization: authorization };
}

/**
 * Creates the list `name` with PUT and answers its status: 201, or 501 from a store that holds the
 * default list only. Any other status throws.
 */
export async function createList(
  origin: string,
  name: string,
  title: string,
  authorization?: string,
): Promise<201 | 501> {
  const response = await fetch(`${origin}/lists/${name}`, {
    method: "PUT",
    headers: jsonHeaders(authorization),
    body: JSON.stringify({ title }),
  });
  const text = await response.text();
  if (response.status === 201 || response.status === 501) return response.status;
  throw new Error(`PUT ${origin}/lists/${name} should answer 201, got ${response.status}: ${text.slice(0, 200)}`);
}

/** POSTs each of `bodies` to `url`, one after another, and checks that each is answered 2xx. */
export async function postEach(url: string, bodies: readonly string[], authorization?: string): Promise<void> {
  for (const body of bodies) {
    const response = await fetch(url, { method: "POST", headers: jsonHeaders(authorization), body });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: check MAX_TASKS and the server log`);
  }
}

/**
 * Creates each list of `names` and POSTs `body` `tasks` times to it, over `connections` kept-alive
 * connections at once: lists grow through the API, as clients grow them.
 */
export async function createFilledLists(
  origin: string,
  names: readonly string[],
  body: string,
  tasks: number,
  connections = 16,
): Promise<void> {
  const bodies = Array.from({ length: tasks }, () => body);
  let next = 0;
  const fill = async () => {
    for (let i = next++; i < names.length; i = next++) {
      const name = names[i] ?? "";
      if ((await createList(origin, name, `Bench list ${name}`)) !== 201) {
        throw new Error(`PUT ${origin}/lists/${name} answered 501: this store holds the default list only`);
      }
      await postEach(namedTasksUrl(origin, name), bodies);
    }
  };
  await Promise.all(Array.from({ length: connections }, fill));
}

/** Throws when a run completed nothing or some of its answers were errors: a rate of 404s measures nothing. */
function checkClean(requests: number, errors: number, url: string): void {
  if (requests < 1) throw new Error(`No request to ${url} completed`);
  if (errors > 0) throw new Error(`${errors} requests to ${url} failed or answered 4xx/5xx`);
}

/** One measured run: its clean rate and the server's CPU per request, in µs. */
export async function measureRate(
  pid: number,
  load: WrkLoad,
  layout: CpuLayout,
): Promise<{ rps: number; cpuUs: number }> {
  const m = await measureRun(pid, load, layout);
  checkClean(m.requestsPerSecond * load.seconds, m.errors, load.url);
  return { rps: m.requestsPerSecond, cpuUs: m.cpuMicrosPerRequest };
}

/** Two wrk runs at once, from the load generator's CPUs: the clean rate of each. */
export async function ratesTogether(loads: readonly [WrkLoad, WrkLoad], layout: CpuLayout): Promise<[number, number]> {
  const cpus = tasksetList(layout, layout.load);
  const rate = async (load: WrkLoad) => {
    const wrk = await runWrk(load, cpus);
    checkClean(
      wrk.requests,
      Object.values(wrk.errors).reduce((a, b) => a + b, 0),
      load.url,
    );
    return wrk.requests / (wrk.durationUs / 1e6);
  };
  return Promise.all([rate(loads[0]), rate(loads[1])]);
}
