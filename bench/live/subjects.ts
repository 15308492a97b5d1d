// The live scenario's servers, how many subscribers and POSTs each trial gets, and what a trial reads.
import type { Runtime } from "../lib/servers.ts";

/**
 * The servers of the live scenario, each runtime's service beside the plain peer on it: the service
 * with its list in memory, the plain Hono peer with live changes (bench/peers/hono-live/), and two
 * Node processes of the service on one PostgreSQL list, subscribers on one and POSTs to the other.
 */
export const LIVE_SUBJECTS = [
  "live-node",
  "live-hono-node",
  "live-bun",
  "live-hono-bun",
  "live-deno",
  "live-hono-deno",
  "live-node-postgres",
] as const;
export type LiveSubject = (typeof LIVE_SUBJECTS)[number];
export type LiveRuntime = Exclude<Runtime, "workerd">;

/** The service with its list in memory, the plain peer, or two processes of the service on PostgreSQL. */
export type LiveServer = "app" | "hono-live" | "app-postgres";

const SUBJECT_SERVERS: Record<LiveSubject, readonly [LiveRuntime, LiveServer]> = {
  "live-node": ["node", "app"],
  "live-hono-node": ["node", "hono-live"],
  "live-bun": ["bun", "app"],
  "live-hono-bun": ["bun", "hono-live"],
  "live-deno": ["deno", "app"],
  "live-hono-deno": ["deno", "hono-live"],
  "live-node-postgres": ["node", "app-postgres"],
};

/** The runtime of a live subject. */
export function liveRuntimeOf(subject: LiveSubject): LiveRuntime {
  return SUBJECT_SERVERS[subject][0];
}

/** The server of a live subject. */
export function liveServerOf(subject: LiveSubject): LiveServer {
  return SUBJECT_SERVERS[subject][1];
}

/** Subscribers of a full run: the two targets. */
export const FULL_SUBSCRIBERS = [1_000, 10_000];
/** The quick run skips 10,000 subscribers, whose trials take about a minute each. */
export const QUICK_SUBSCRIBERS = [1_000];

/**
 * Across processes on PostgreSQL the target is about latency, not scale: it runs at up to this
 * many subscribers.
 */
const POSTGRES_MAX_SUBSCRIBERS = 1_000;

/** Whether a live subject runs with `subscribers` subscribers. */
export function liveMeasuredAt(subject: LiveSubject, subscribers: number): boolean {
  return liveServerOf(subject) !== "app-postgres" || subscribers <= POSTGRES_MAX_SUBSCRIBERS;
}

/**
 * POSTs per trial, one at a time: every subscriber's event of each is one latency, so 100 POSTs
 * give 100,000 at 1,000 subscribers; 50 at 10,000 give 500,000 and keep the trial under a minute.
 * The quick run makes 30.
 */
export function postsFor(subscribers: number, quick: boolean): number {
  if (quick) return 30;
  return subscribers > 1_000 ? 50 : 100;
}

/** What one live trial measured. */
export interface LiveReading {
  readonly subject: LiveSubject;
  readonly runtime: LiveRuntime;
  readonly server: LiveServer;
  readonly subscribers: number;
  readonly repeat: number;
  readonly posts: number;
  /** Events received, one per subscriber and POST when none is missed. */
  readonly events: number;
  /** Events that never came within the wait for each POST's. */
  readonly missed: number;
  /** Events received twice, or of tasks the trial did not POST. */
  readonly unexpected: number;
  /** Streams the server ended before the subscribers left. */
  readonly ended: number;
  /** From a POST's answer reaching the client to its event reaching a subscriber, over every event. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /**
   * The same from a PATCH's answer to its `update` event, over every event of the PATCHes that follow
   * the POSTs, one per task they created; undefined on the plain peer, which has no PATCH.
   */
  readonly editP50Ms: number | undefined;
  readonly editP99Ms: number | undefined;
  /** How long opening every stream took. */
  readonly openSeconds: number;
  /** The median time a POST took, from its request to its answer: the server may write events first. */
  readonly postMs: number;
  /** The server's CPU time over the POSTs, per event received (on PostgreSQL, the subscribers' server only). */
  readonly serverMicrosPerEvent: number;
  /** The subscriber clients' CPU time over the POSTs, per event received. */
  readonly clientMicrosPerEvent: number;
  /**
   * Resident memory before the streams opened, once they had settled, after the POSTs and after the
   * subscribers left; not on PostgreSQL.
   */
  readonly rssBeforeKib: number | undefined;
  readonly rssOpenKib: number | undefined;
  readonly rssPostedKib: number | undefined;
  readonly rssLeftKib: number | undefined;
}
