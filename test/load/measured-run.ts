import { settledMemoryKib } from "../support/process-memory.ts";
import type { RunningServer, Runtime } from "../support/server.ts";
import { type LoadRequest, runAutocannon } from "./autocannon.ts";
import type { StatusLog } from "./status-log.ts";

/** Keep-alive connections kept busy at once: enough to overlap appends, few enough for two cores. */
export const CONNECTIONS = 16;
/** Seconds of load before the memory baseline, so that start-up and JIT growth are not counted. */
const WARM_UP_SECONDS = 1;
/** Seconds one request may take before it counts as a timeout: generous, since CI shares two cores. */
const REQUEST_TIMEOUT_SECONDS = 30;

/** What every load run reports, whatever requests it sends. */
export interface RunFigures {
  readonly runtime: Runtime;
  readonly seconds: number;
  /** Responses received in the measured run (the warm-up excluded). */
  readonly requests: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** Connection errors, timeouts and resets, warm-up included. */
  readonly connectionErrors: number;
  readonly serverErrors: number;
  /** Responses the requests' hooks did not expect, with the first few kept. */
  readonly unexpected: readonly string[];
  readonly memoryBeforeKib: number;
  readonly memoryAfterKib: number;
}

/**
 * Drives `server` with {@link CONNECTIONS} keep-alive connections repeating `requests`, first for a
 * short warm-up, then for `seconds`, and reads the server's settled memory before and after the
 * measured part. The requests' hooks record their answers in `log`.
 */
export async function measuredRun(
  server: RunningServer,
  runtime: Runtime,
  seconds: number,
  requests: readonly LoadRequest[],
  log: StatusLog,
): Promise<RunFigures> {
  const load = (duration: number) =>
    runAutocannon({
      url: server.baseUrl,
      connections: CONNECTIONS,
      duration,
      requests,
      timeout: REQUEST_TIMEOUT_SECONDS,
    });
  const warmUp = await load(WARM_UP_SECONDS);
  const memoryBeforeKib = await settledMemoryKib(server.memoryKib);
  const run = await load(seconds);
  const memoryAfterKib = await settledMemoryKib(server.memoryKib);
  return {
    runtime,
    seconds: run.duration,
    requests: run.requests.total,
    statuses: log.statuses(),
    connectionErrors: warmUp.errors + warmUp.resets + run.errors + run.resets,
    serverErrors: warmUp["5xx"] + run["5xx"],
    unexpected: log.unexpected(),
    memoryBeforeKib,
    memoryAfterKib,
  };
}
