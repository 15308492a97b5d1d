import type { Runtime, ServerKind } from "./servers.ts";

/** Tasks in a fresh list. */
export const INITIAL_TASKS = 2;

/** What a run measures: the whole list, the list when the client has it already (304), a create. */
export const SCENARIOS = ["get", "conditional-get", "post"] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The servers a bench run compares: the service on each runtime, and the Fastify peer. */
export const SUBJECTS = ["node", "bun", "deno", "workerd", "fastify"] as const;
export type Subject = (typeof SUBJECTS)[number];

/** The runtime a subject runs on. */
export function runtimeOf(subject: Subject): Runtime {
  return subject === "fastify" ? "node" : subject;
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
