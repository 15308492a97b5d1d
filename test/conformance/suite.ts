import { accessCases } from "./access.ts";
import { byteLimitCases } from "./byte-limit.ts";
import { type ConformanceOptions, type ConformanceTarget, createClient } from "./client.ts";
import { emptyHeaderCases } from "./empty-headers.ts";
import { runTableCase, type TableCase } from "./expect.ts";
import { filterCases } from "./filters.ts";
import { idempotencyCases } from "./idempotency.ts";
import { listGoneCases } from "./list-gone.ts";
import { listKeyCases } from "./list-keys.ts";
import { listMadeAgainCases } from "./list-made-again.ts";
import { liveCases } from "./live.ts";
import { socketCatchUpCases } from "./socket-catch-up.ts";
import { corsCases, freshListCase, limitCases, type StatefulCase, statefulCases } from "./stateful.ts";
import { settingTableCases, storeTableCases, tableCases } from "./table.ts";
import { taskAccessCases } from "./task-access.ts";
import { taskChangeCases } from "./task-changes.ts";
import { taskEventCases } from "./task-events.ts";
import { taskLimitCases } from "./task-limits.ts";
import { titleCases } from "./titles.ts";

export type { ConformanceOptions, ConformanceTarget, FetchFunction } from "./client.ts";

/** One named check of the contract, run against a client for the target. */
export type ConformanceCase = StatefulCase;

/** The outcome of one case in {@link runConformance}. */
export interface CaseResult {
  readonly name: string;
  /** Why the case failed; undefined when it passed or was skipped. */
  readonly failure: string | undefined;
  /** Why the case was not run; undefined when it was. */
  readonly skipped?: string;
}

/**
 * Every case of the contract for a target configured as `options` says, in the order they must
 * run: the fresh-list check first (it must see the list before any POST), the limit cases last
 * (they fill the list).
 */
export function conformanceCases(options: ConformanceOptions = {}): ConformanceCase[] {
  return [...casesBeforeLimits(options), ...fillingCases(options)];
}

/** The cases that leave room in the list: every case but the ones that fill it. */
export function casesBeforeLimits(options: ConformanceOptions = {}): ConformanceCase[] {
  return [
    ...(options.fresh === true ? [freshListCase] : []),
    ...rowCases(tableCases(options)),
    ...statefulCases(),
    ...liveCases(options),
    ...idempotencyCases(options),
    ...filterCases(),
    ...corsCases(options.corsOrigins),
    ...(options.tokens === undefined ? [] : accessCases(options.tokens)),
    // Last: they edit and delete tasks, which the cases above do not expect of the list.
    ...taskChangeCases(),
    ...titleCases(),
    ...emptyHeaderCases(options.worker === true),
    ...taskEventCases(options.sockets === true),
    ...listMadeAgainCases(options),
    ...listGoneCases(options),
    ...taskAccessCases(options),
    ...listKeyCases(options),
  ];
}

/**
 * The cases that write the list and read it back (tasks created, edited and deleted, ETags, change
 * numbers and events, Idempotency-Keys), leaving out those the app decides before it asks the
 * store (Content-Type, bodies, methods, paths, CORS, tokens). They are what differs from store to
 * store, so a store reached from several runtimes runs these on each, and the rest once.
 */
export function storeCases(options: ConformanceOptions = {}): ConformanceCase[] {
  return [
    ...(options.fresh === true ? [freshListCase] : []),
    ...rowCases(storeTableCases(options)),
    ...statefulCases(),
    ...liveCases(options),
    ...idempotencyCases(options),
    ...filterCases(),
    ...taskChangeCases(),
    ...taskEventCases(options.sockets === true),
    ...listMadeAgainCases(options),
    ...listGoneCases(options),
    // Keys are rows of the store's own: a server with tokens runs them on its driver.
    ...listKeyCases(options),
  ];
}

/** The few {@link storeCases} that send each kind of request to the store once (see `StatefulCase.core`). */
export function coreStoreCases(options: ConformanceOptions = {}): ConformanceCase[] {
  return storeCases(options).filter((testCase) => testCase.core === true);
}

/**
 * For a real server, beside the whole suite in-process on every store: what passes through the
 * runtime between the socket and the app. Requests and answers as bytes on the wire (headers as
 * sent, HEAD, 204, 304 and 405 without a body, query strings, paths under the base path, unusual
 * methods, empty header values, bodies at and past MAX_BODY_BYTES, chunked ones, refusals before the
 * body), event streams and WebSockets, subscribers that leave, concurrent requests, and an ordinary
 * pass of reads and writes. Left out, as the app decides them alone: Content-Types, bodies and
 * fields refused, titles, filters and Idempotency-Keys past their core, and the limits that fill a list.
 */
export function serverCases(options: ConformanceOptions = {}): ConformanceCase[] {
  const core = (testCase: ConformanceCase) => testCase.core === true;
  return [
    ...(options.fresh === true ? [freshListCase] : []),
    ...rowCases([...storeTableCases(options), ...settingTableCases(options)]),
    ...statefulCases(),
    ...liveCases(options),
    ...(options.sockets === true ? socketCatchUpCases() : []),
    ...idempotencyCases(options).filter(core),
    ...filterCases().filter(core),
    ...corsCases(options.corsOrigins),
    ...(options.tokens === undefined ? [] : accessCases(options.tokens)),
    ...taskChangeCases(),
    ...emptyHeaderCases(options.worker === true),
    ...taskEventCases(options.sockets === true),
    ...listMadeAgainCases(options),
    ...listGoneCases(options),
    ...taskAccessCases(options),
    ...listKeyCases(options),
  ];
}

/** The cases that fill the list to MAX_LIST_BYTES or MAX_TASKS, when the options name them. */
export function fillingCases(options: ConformanceOptions = {}): ConformanceCase[] {
  return [
    ...(options.maxListBytes === undefined ? [] : byteLimitCases(options.maxListBytes)),
    ...(options.maxTasks === undefined ? [] : limitCases(options.maxTasks)),
    ...taskLimitCases(options),
  ];
}

/** Runs every case in order without a test framework, reporting each result as it comes. */
export async function runConformance(
  target: ConformanceTarget,
  options: ConformanceOptions = {},
  onResult: (result: CaseResult) => void = () => {},
): Promise<CaseResult[]> {
  const client = createClient(target, options);
  const results: CaseResult[] = [];
  for (const testCase of conformanceCases(options)) {
    let failure: string | undefined;
    try {
      if (testCase.skip === undefined) await testCase.run(client);
    } catch (error) {
      failure = describeFailure(error);
    }
    const result = { name: testCase.name, failure, ...(testCase.skip === undefined ? {} : { skipped: testCase.skip }) };
    results.push(result);
    onResult(result);
  }
  return results;
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}

/** Table rows as cases, each sending its request and checking the response. */
function rowCases(rows: readonly TableCase[]): ConformanceCase[] {
  return rows.map((row) => ({ name: row.name, run: (client) => runTableCase(client, row) }));
}
