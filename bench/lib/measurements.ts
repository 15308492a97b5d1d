import type { Runtime, ServerKind } from "./servers.ts";

/** Tasks in a fresh list. */
export const INITIAL_TASKS = 2;

/**
 * What a run measures: the whole list, the list when the client has it already (304), both again
 * after {@link EDITS} edits spread over the list, a create followed on the same connection by a read
 * of the list (a read after a change), the same with the read answered 304 (`If-None-Match: *`), an
 * edit of a task (PATCH), a create, a create with a fresh Idempotency-Key.
 */
export const SCENARIOS = [
  "get",
  "conditional-get",
  "get-edited",
  "conditional-get-edited",
  "read-after-change",
  "read-after-change-304",
  "patch",
  "post",
  "post-key",
] as const;
/** The scenarios of a read after a change. */
export const READ_AFTER_CHANGE: readonly Scenario[] = ["read-after-change", "read-after-change-304"];
export type Scenario = (typeof SCENARIOS)[number];

/**
 * Pairs (a POST, then a GET) after which a run of a read after a change ends, unless its seconds
 * end it first: about the tasks it adds to the list. The same for every server, so that the Worker
 * with the Durable Object and the one with its list in memory read the same lists; few enough that
 * the lists of a run at 2 tasks stay short (about 70 KB at the end); and enough for about 0.2 s of
 * the server's CPU on the fastest pairs (the list in memory, answered 304), 20 of /proc's 10 ms ticks.
 */
export const READ_AFTER_CHANGE_PAIRS = 1000;

/** The scenarios of the service on every runtime. */
const SERVICE_SCENARIOS: readonly Scenario[] = ["get", "conditional-get", "post"];

/**
 * Edits made to the list between the reads before and after them, each to a different task: the
 * reads after edits run only on lists of at least this many tasks.
 */
export const EDITS = 1_000;

/**
 * The servers a bench run starts, grouped by runtime so that the servers compared with each other
 * run close in time: the service; on workerd, the service keeping its list in a Durable Object
 * (`workerd-durable`, right after the service with the list in memory); the service with
 * LOG_LEVEL=off (`-logoff`, at 2 tasks only, to price the request log); the service with its
 * list in PostgreSQL (`-postgres`, Node, Bun and Deno: workerd would need Hyperdrive, which only
 * wrangler emulates); the plain Hono peer
 * (`hono-`); and, on Node, the Fastify peer.
 */
export const SUBJECTS = [
  "node",
  "node-logoff",
  "node-postgres",
  "hono-node",
  "fastify",
  "bun",
  "bun-logoff",
  "bun-postgres",
  "hono-bun",
  "deno",
  "deno-logoff",
  "deno-postgres",
  "hono-deno",
  "workerd",
  "workerd-durable",
  "workerd-logoff",
  "hono-workerd",
] as const;
export type Subject = (typeof SUBJECTS)[number];

type SubjectServer = Exclude<ServerKind, "ceiling">;

/** The runtime and the server of each subject. */
const SUBJECT_SERVERS: Record<Subject, readonly [Runtime, SubjectServer]> = {
  node: ["node", "app"],
  "node-logoff": ["node", "app-logoff"],
  "node-postgres": ["node", "app-postgres"],
  "hono-node": ["node", "hono"],
  fastify: ["node", "fastify"],
  bun: ["bun", "app"],
  "bun-logoff": ["bun", "app-logoff"],
  "bun-postgres": ["bun", "app-postgres"],
  "hono-bun": ["bun", "hono"],
  deno: ["deno", "app"],
  "deno-logoff": ["deno", "app-logoff"],
  "deno-postgres": ["deno", "app-postgres"],
  "hono-deno": ["deno", "hono"],
  workerd: ["workerd", "app"],
  "workerd-durable": ["workerd", "app-durable"],
  "workerd-logoff": ["workerd", "app-logoff"],
  "hono-workerd": ["workerd", "hono"],
};

/** The runtime a subject runs on. */
export function runtimeOf(subject: Subject): Runtime {
  return SUBJECT_SERVERS[subject][0];
}

/** Which server a subject is. */
export function serverOf(subject: Subject): SubjectServer {
  return SUBJECT_SERVERS[subject][1];
}

/**
 * The scenarios each server is measured in. The plain Hono peer has no ETag, so no conditional GET.
 * The service with its list in memory is also measured editing tasks, and reading the list after edits.
 * The service with LOG_LEVEL=off runs the service's conditional GET, GET and POST, in the same
 * order, so that each comes after as much warm-up as the service's.
 */
const SCENARIOS_OF: Record<SubjectServer, readonly Scenario[]> = {
  app: [...SERVICE_SCENARIOS, "get-edited", "conditional-get-edited", "patch"],
  "app-logoff": ["conditional-get", "get", "post"],
  "app-postgres": SERVICE_SCENARIOS,
  "app-durable": SERVICE_SCENARIOS,
  fastify: SERVICE_SCENARIOS,
  hono: ["get", "post"],
};

/**
 * The largest list the `-postgres` subjects are measured at. Growing a list by POSTs runs at the
 * pace of the database's durable commits, one at a time (about a thousand a second on the
 * committed machine), so 100,000 tasks would take minutes per trial; the queries of a GET, a 304
 * and a POST ask for tasks by id, so their cost does not grow with the list.
 */
const POSTGRES_MAX_TASKS = 1_000;

/**
 * The subjects measured on a read after a change: the Worker with its list in a Durable Object,
 * and the same Worker with the list in memory, its reference, whose GETs send the same lists.
 */
const READ_AFTER_CHANGE_SUBJECTS: readonly Subject[] = ["workerd", "workerd-durable"];

/**
 * The subjects whose POSTs are measured again with a fresh Idempotency-Key each, right after the
 * plain POSTs: what a key costs, in memory and in a PostgreSQL transaction.
 */
const KEYED_POST_SUBJECTS: readonly Subject[] = ["node", "node-postgres"];

/**
 * The scenarios a subject is measured in: those of its server, the read after a change for the
 * two Workers it compares (see {@link READ_AFTER_CHANGE_SUBJECTS}), and the POST with a key for
 * {@link KEYED_POST_SUBJECTS}.
 */
export function scenariosOf(subject: Subject): readonly Scenario[] {
  const scenarios = SCENARIOS_OF[serverOf(subject)];
  const reads = READ_AFTER_CHANGE_SUBJECTS.includes(subject) ? READ_AFTER_CHANGE : [];
  const keyed: Scenario[] = KEYED_POST_SUBJECTS.includes(subject) ? ["post-key"] : [];
  return [...scenarios, ...reads, ...keyed];
}

/**
 * Whether a subject runs at a list size: the service with LOG_LEVEL=off only at {@link INITIAL_TASKS},
 * the service on PostgreSQL up to {@link POSTGRES_MAX_TASKS}.
 */
export function measuredAt(subject: Subject, tasks: number): boolean {
  const server = serverOf(subject);
  if (server === "app-logoff") return tasks === INITIAL_TASKS;
  return server !== "app-postgres" || tasks <= POSTGRES_MAX_TASKS;
}

/** One wrk run against one server. */
export interface Measurement {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  readonly scenario: Scenario;
  /** Tasks in the list when the run started; a POST run adds to it as it goes. */
  readonly tasks: number;
  readonly repeat: number;
  /** wrk connections: fewer for GETs of lists over 1 MiB. */
  readonly connections: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The server's user + system CPU time over the run, divided by the requests it answered. */
  readonly cpuMicrosPerRequest: number;
  readonly bytesPerResponse: number;
  /** Connect, read, write and timeout errors, and answers with a status of 400 or more. */
  readonly errors: number;
  /** Share of time the server's core and the load generator's cores were busy, 0 to 1. */
  readonly serverCoreBusy: number;
  readonly loadCoresBusy: number;
  /**
   * Share of the server core's time that was busy but not charged to the server: kernel network
   * work, and other processes. High values mean something else competed with the server.
   */
  readonly serverCoreOther: number;
}

/** Resident memory of a fresh, warmed-up server before and after the list grew by POSTs. */
export interface MemoryReading {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  readonly tasks: number;
  readonly repeat: number;
  readonly rssBeforeKib: number;
  readonly rssAfterKib: number;
  readonly tasksAdded: number;
  /** Bytes the added tasks take in the list's JSON. */
  readonly jsonBytesAdded: number;
}
