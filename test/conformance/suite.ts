import { accessCases } from "./access.ts";
import { byteLimitCases } from "./byte-limit.ts";
import { type ConformanceOptions, type ConformanceTarget, createClient } from "./client.ts";
import { runTableCase } from "./expect.ts";
import { idempotencyCases } from "./idempotency.ts";
import { liveCases } from "./live.ts";
import { corsCases, freshListCase, limitCases, type StatefulCase, statefulCases } from "./stateful.ts";
import { tableCases } from "./table.ts";
import { taskAccessCases } from "./task-access.ts";
import { taskChangeCases } from "./task-changes.ts";
import { taskEventCases } from "./task-events.ts";
import { taskLimitCases } from "./task-limits.ts";

export type { ConformanceOptions, ConformanceTarget, FetchFunction } from "./client.ts";

/** One named check of the contract, run against a client for the target. */
export type ConformanceCase = StatefulCase;

/** The outcome of one case in {@link runConformance}. */
export interface CaseResult {
  readonly name: string;
  /** Why the case failed; undefined when it passed. */
  readonly failure: string | undefined;
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
    ...tableCases(options).map(
      (row): ConformanceCase => ({ name: row.name, run: (client) => runTableCase(client, row) }),
    ),
    ...statefulCases(),
    ...liveCases(options),
    ...idempotencyCases(options),
    ...corsCases(options.corsOrigins),
    ...(options.tokens === undefined ? [] : accessCases(options.tokens)),
    // Last: they edit and delete tasks, which the cases above do not expect of the list.
    ...taskChangeCases(),
    ...taskEventCases(options.sockets === true),
    ...taskAccessCases(options),
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
      await testCase.run(client);
    } catch (error) {
      failure = describeFailure(error);
    }
    const result = { name: testCase.name, failure };
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
