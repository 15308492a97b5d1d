// What a run measures: its servers by the names --only takes, the runtime each runs on, and the
// scenarios, list sizes and crowds of subscribers each is measured at.

/** The runtimes the service runs on. */
export const RUNTIMES = ["node", "bun", "deno", "workerd"] as const;
export type Runtime = (typeof RUNTIMES)[number];

/** The servers, in the order tables list them, by the names tables give them. */
export const SERVERS = {
  ceiling: "ceiling",
  app: "service",
  "app-durable": "service, Durable Object",
  "app-logoff": "service, LOG_LEVEL=off",
  "app-postgres": "service, PostgreSQL",
  hono: "plain Hono",
  "hono-live": "plain Hono (streamSSE)",
  fastify: "Fastify",
} as const;
export type ServerKind = keyof typeof SERVERS;

/** What one wrk run measures, in the order of the results, by the names tables give them. */
export const SCENARIOS = {
  get: "GET",
  "conditional-get": "GET If-None-Match (304)",
  "get-edited": "GET after 1,000 edits",
  "conditional-get-edited": "GET If-None-Match (304) after 1,000 edits",
  "read-after-change": "POST, then GET (read after change)",
  "read-after-change-304": "POST, then GET If-None-Match: * (304 after change)",
  patch: "PATCH",
  post: "POST",
  "post-key": "POST with Idempotency-Key",
} as const;
export type Scenario = keyof typeof SCENARIOS;

/** The reads after a change: each a POST with a GET pipelined behind it. */
export const READ_AFTER_CHANGE: readonly Scenario[] = ["read-after-change", "read-after-change-304"];

/** Tasks in a fresh list. */
export const INITIAL_TASKS = 2;
/** Edits between the reads before and after them, each to another task: lists of fewer tasks skip those reads. */
export const EDITS = 1_000;
/**
 * Pairs after which a read after a change ends, unless its seconds end it first: as many tasks
 * added, whichever Worker it runs on, so both read the same lists; few enough that those of a run at
 * 2 tasks stay short (about 70 KB at the end); enough for 20 of /proc's 10 ms ticks on the fastest pairs.
 */
export const READ_AFTER_CHANGE_PAIRS = 1_000;

/**
 * The servers of the wrk scenarios, in the order they run within a repeat, so that those compared
 * run seconds apart: the service, with LOG_LEVEL=off, on PostgreSQL, the plain Hono peer, Fastify.
 */
const SUBJECTS = {
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
} as const satisfies Record<string, readonly [Runtime, ServerKind]>;
export type Subject = keyof typeof SUBJECTS;

/** The servers of the live scenario, each runtime's service beside the plain peer with live changes. */
const LIVE_SUBJECTS = {
  "live-node": ["node", "app"],
  "live-hono-node": ["node", "hono-live"],
  "live-bun": ["bun", "app"],
  "live-hono-bun": ["bun", "hono-live"],
  "live-deno": ["deno", "app"],
  "live-hono-deno": ["deno", "hono-live"],
  "live-node-postgres": ["node", "app-postgres"],
} as const satisfies Record<string, readonly [Runtime, ServerKind]>;
export type LiveSubject = keyof typeof LIVE_SUBJECTS;

/** The servers of the feed scenario (catching up, stalled subscribers): the service with its list in memory, and in a Durable Object. */
const FEED_SUBJECTS = {
  "feed-node": ["node", "app"],
  "feed-bun": ["bun", "app"],
  "feed-deno": ["deno", "app"],
  "feed-workerd": ["workerd", "app"],
  "feed-workerd-durable": ["workerd", "app-durable"],
} as const satisfies Record<string, readonly [Runtime, ServerKind]>;
export type FeedSubject = keyof typeof FEED_SUBJECTS;

/**
 * The servers of the lists scenario (issue 34): the service with its lists in memory on each
 * runtime, and with each list in a Durable Object of its own.
 */
const LISTS_SUBJECTS = {
  "lists-node": ["node", "app"],
  "lists-bun": ["bun", "app"],
  "lists-deno": ["deno", "app"],
  "lists-workerd": ["workerd", "app"],
  "lists-workerd-durable": ["workerd", "app-durable"],
} as const satisfies Record<string, readonly [Runtime, ServerKind]>;
export type ListsSubject = keyof typeof LISTS_SUBJECTS;

/**
 * The servers of the keys scenario (issue 45): the service with READ_TOKENS and WRITE_TOKENS set, its
 * lists in memory on each runtime, and in a Durable Object each.
 */
const KEYS_SUBJECTS = {
  "keys-node": ["node", "app"],
  "keys-bun": ["bun", "app"],
  "keys-deno": ["deno", "app"],
  "keys-workerd": ["workerd", "app"],
  "keys-workerd-durable": ["workerd", "app-durable"],
} as const satisfies Record<string, readonly [Runtime, ServerKind]>;
export type KeysSubject = keyof typeof KEYS_SUBJECTS;

/** Every subject's name, in its running order. */
export const SUBJECT_NAMES = Object.keys(SUBJECTS) as Subject[];
export const LIVE_SUBJECT_NAMES = Object.keys(LIVE_SUBJECTS) as LiveSubject[];
export const FEED_SUBJECT_NAMES = Object.keys(FEED_SUBJECTS) as FeedSubject[];
export const LISTS_SUBJECT_NAMES = Object.keys(LISTS_SUBJECTS) as ListsSubject[];
export const KEYS_SUBJECT_NAMES = Object.keys(KEYS_SUBJECTS) as KeysSubject[];

type AnySubject = Subject | LiveSubject | FeedSubject | ListsSubject | KeysSubject;
const ALL: Record<AnySubject, readonly [Runtime, ServerKind]> = {
  ...SUBJECTS,
  ...LIVE_SUBJECTS,
  ...FEED_SUBJECTS,
  ...LISTS_SUBJECTS,
  ...KEYS_SUBJECTS,
};

/** The runtime a subject runs on. */
export function runtimeOf(subject: AnySubject): Runtime {
  return ALL[subject][0];
}

/** Which server a subject is. */
export function serverOf(subject: AnySubject): ServerKind {
  return ALL[subject][1];
}

/** What the service is measured at on every store, and Fastify too. */
const SERVICE_SCENARIOS: readonly Scenario[] = ["get", "conditional-get", "post"];

/**
 * The scenarios of each server. Plain Hono has no ETag, so no conditional GET; the service with its
 * list in memory also edits tasks and reads the list after edits, and with its list in a Durable
 * Object edits tasks too.
 */
const SCENARIOS_OF: Partial<Record<ServerKind, readonly Scenario[]>> = {
  app: [...SERVICE_SCENARIOS, "get-edited", "conditional-get-edited", "patch"],
  "app-logoff": SERVICE_SCENARIOS,
  "app-postgres": SERVICE_SCENARIOS,
  "app-durable": [...SERVICE_SCENARIOS, "patch"],
  fastify: SERVICE_SCENARIOS,
  hono: ["get", "post"],
};

/**
 * The scenarios a subject is measured in: its server's; the reads after a change on the Worker with
 * its list in a Durable Object and on the same Worker with the list in memory, its reference; and a
 * POST with a fresh Idempotency-Key, in memory and on PostgreSQL.
 */
export function scenariosOf(subject: Subject): readonly Scenario[] {
  const reads = subject === "workerd" || subject === "workerd-durable" ? READ_AFTER_CHANGE : [];
  const keyed: Scenario[] = subject === "node" || subject === "node-postgres" ? ["post-key"] : [];
  return [...(SCENARIOS_OF[serverOf(subject)] ?? []), ...reads, ...keyed];
}

/**
 * Whether a subject runs at a list size. LOG_LEVEL=off prices the log where it weighs most, on the
 * smallest answers. PostgreSQL commits each POST to disk, one at a time, so growing a list to
 * 100,000 tasks would take minutes per trial, and its queries ask for tasks by id: up to 1,000.
 */
export function measuredAt(subject: Subject, tasks: number): boolean {
  const server = serverOf(subject);
  if (server === "app-logoff") return tasks === INITIAL_TASKS;
  return server !== "app-postgres" || tasks <= 1_000;
}

/** Whether a live subject runs with a crowd: across processes on PostgreSQL the target is about latency, not scale. */
export function liveMeasuredAt(subject: LiveSubject, subscribers: number): boolean {
  return serverOf(subject) !== "app-postgres" || subscribers <= 1_000;
}

/**
 * POSTs per live trial, one at a time: each gives a latency per subscriber, so 100 give 100,000 at
 * 1,000 subscribers; 50 give 500,000 at 10,000 and keep the trial under a minute. The quick run makes 30.
 */
export function postsFor(subscribers: number, quick: boolean): number {
  if (quick) return 30;
  return subscribers > 1_000 ? 50 : 100;
}
