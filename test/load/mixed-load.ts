import type { RunningServer, Runtime } from "../support/server.ts";
import type { ConnectionContext, LoadRequest, ResponseHeaders } from "./autocannon.ts";
import { CONNECTIONS, measuredRun, type RunFigures } from "./measured-run.ts";
import { StatusLog } from "./status-log.ts";

/**
 * Tasks that may be stored without their 200 having arrived: autocannon drops the connections
 * when its clock stops, so the warm-up and the measured run may each leave one POST per connection.
 */
export const MAX_IN_FLIGHT = 2 * CONNECTIONS;
/** Every title has this many characters, so the list's size follows from its length. */
const TITLE_LENGTH = 64;

/** A task as the service returns it. */
interface Task {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/** What one run of {@link runMixedLoad} did and found; printed, and checked by the tests. */
export interface LoadFigures extends RunFigures {
  readonly connections: number;
  /** POSTs returned 200, warm-up included. */
  readonly acknowledged: number;
  /** Acknowledged tasks missing from the final list, or present with other content. */
  readonly lost: number;
  /** Titles that appear more than once in the final list. */
  readonly duplicated: number;
  /** Tasks in the list that carry this run's title prefix but a title no POST of the run sent. */
  readonly unknown: number;
  /** Tasks stored whose 200 never arrived: POSTs in flight when the clock stopped. */
  readonly inFlight: number;
  /** Positions in the final list whose id is not the position plus 1. */
  readonly idGaps: number;
  readonly tasks: number;
  readonly listBytes: number;
}

/** Counts what the connections send and receive; autocannon calls its hooks for every request. */
class Tracker {
  readonly #prefix: string;
  #next = 0;
  readonly sent = new Set<string>();
  /** Raw bodies of the POSTs returned 200, by the id they announce. */
  readonly acknowledged = new Map<number, string>();
  readonly log = new StatusLog();

  constructor(runtime: Runtime) {
    this.#prefix = `Load ${runtime} `;
  }

  /** A POST whose body carries a title no other request of the run uses. */
  post(path: string): LoadRequest {
    return {
      method: "POST",
      path,
      headers: { "Content-Type": "application/json" },
      setupRequest: (request) => {
        const n = this.#next++;
        const title = `${this.#prefix}${n} `.padEnd(TITLE_LENGTH, "-");
        this.sent.add(title);
        return { ...request, body: JSON.stringify({ title, completed: n % 2 === 0 }) };
      },
      onResponse: (status, body) => {
        if (!this.log.record("POST", status, body, status === 200)) return;
        const task = JSON.parse(body) as Task;
        if (this.acknowledged.has(task.id)) this.log.record("POST", status, `${body} (id answered twice)`, false);
        this.acknowledged.set(task.id, body);
      },
    };
  }

  /** A GET of the whole list that remembers the ETag for the conditional GET after it. */
  get(path: string): LoadRequest {
    return {
      method: "GET",
      path,
      onResponse: (status, body, context, headers) => {
        if (!this.log.record("GET", status, body, status === 200 && isList(body))) return;
        const etag = header(headers, "etag");
        if (etag !== undefined) context.etag = etag;
      },
    };
  }

  /** A GET with `If-None-Match` set to the ETag the previous GET of this connection saw: 200 or 304. */
  conditionalGet(path: string): LoadRequest {
    return {
      method: "GET",
      path,
      setupRequest: (request, context: ConnectionContext) => ({
        ...request,
        headers: typeof context.etag === "string" ? { "If-None-Match": context.etag } : {},
      }),
      onResponse: (status, body) => {
        this.log.record(
          "conditional GET",
          status,
          body,
          (status === 304 && body === "") || (status === 200 && isList(body)),
        );
      },
    };
  }
}

function header(headers: ResponseHeaders, name: string): string | undefined {
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/** A cheap check that a body is the list: reading every body of a long list in full would slow the client. */
function isList(body: string): boolean {
  return body.startsWith('[{"id":1,') && body.endsWith("}]");
}

/**
 * Drives `server` with {@link CONNECTIONS} keep-alive connections that repeat POST, POST, GET,
 * conditional GET for `seconds` (after a short warm-up), then reads the final list and compares it
 * with every acknowledged POST, and reads the server's memory before and after.
 */
export async function runMixedLoad(server: RunningServer, runtime: Runtime, seconds: number): Promise<LoadFigures> {
  const tracker = new Tracker(runtime);
  const requests = [
    tracker.post("/tasks"),
    tracker.post("/index.php"),
    tracker.get("/tasks"),
    tracker.conditionalGet("/index.php"),
  ];
  const figures = await measuredRun(server, runtime, seconds, requests, tracker.log);

  const response = await fetch(`${server.baseUrl}/tasks`);
  const listText = await response.text();
  const list = JSON.parse(listText) as Task[];
  const titles = new Map<string, number>();
  for (const task of list) titles.set(task.title, (titles.get(task.title) ?? 0) + 1);
  const ours = list.filter((task) => task.title.startsWith(`Load ${runtime} `));

  let lost = 0;
  for (const [id, body] of tracker.acknowledged) {
    const stored = list[id - 1];
    if (stored === undefined || taskText(stored) !== body) lost++;
  }

  return {
    ...figures,
    connections: CONNECTIONS,
    acknowledged: tracker.acknowledged.size,
    lost,
    duplicated: [...titles.values()].filter((count) => count > 1).length,
    unknown: ours.filter((task) => !tracker.sent.has(task.title)).length,
    inFlight: ours.filter((task) => tracker.acknowledged.get(task.id) === undefined).length,
    idGaps: list.filter((task, index) => task.id !== index + 1).length,
    tasks: list.length,
    listBytes: new TextEncoder().encode(listText).byteLength,
  };
}

/** The exact bytes the service writes for a task. */
function taskText(task: Task): string {
  return `{"id":${task.id},"title":${JSON.stringify(task.title)},"completed":${task.completed}}`;
}

/** One line of figures for the log and the README. */
export function describeFigures(figures: LoadFigures, memoryBoundKib: number | undefined): string {
  const mib = (kib: number) => (kib / 1024).toFixed(1);
  const statuses = Object.entries(figures.statuses)
    .map(([key, count]) => `${key}: ${count}`)
    .join(", ");
  const memory =
    `memory ${mib(figures.memoryBeforeKib)} -> ${mib(figures.memoryAfterKib)} MiB` +
    (memoryBoundKib === undefined ? " (not bounded, see the test)" : ` (bound +${mib(memoryBoundKib)} MiB)`);
  return [
    `${figures.runtime}: ${figures.requests} requests in ${figures.seconds} s over ${figures.connections} keep-alive connections`,
    `  statuses (warm-up included): ${statuses}`,
    `  connection errors ${figures.connectionErrors}, 5xx ${figures.serverErrors}, unexpected answers ${figures.unexpected.length}`,
    `  tasks acknowledged ${figures.acknowledged}, lost ${figures.lost}, duplicated ${figures.duplicated}, unknown ${figures.unknown}, id gaps ${figures.idGaps}, stored while in flight at the stop ${figures.inFlight}`,
    `  list ${figures.tasks} tasks, ${(figures.listBytes / 1024).toFixed(1)} KiB; ${memory}`,
  ].join("\n");
}
