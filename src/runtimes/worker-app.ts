// The Worker's app, built from its environment and bindings once per isolate.
import { AsyncLocalStorage } from "node:async_hooks";
import { createApp } from "../app.ts";
import { type EnvRecord, logShows, parseAppConfig, WORKERS_PLATFORM } from "../config.ts";
import { RequestWork } from "../engine/request-work.ts";
import { DurableLists } from "../store/durable-object/durable-lists.ts";
import { openWorkerStore, type WorkerHost } from "../store/kinds.ts";
import { upgradeWebSocket } from "./worker-sockets.ts";

/** What the Worker is handed: its bindings and `waitUntil`; which request runs is found here. */
export type WorkerBindings = Omit<WorkerHost, "request">;

/** The Worker's fetch handler. */
export type WorkerFetch = (
  request: Request,
  bindings: unknown,
  context?: ExecutionContext,
) => Response | Promise<Response>;

/**
 * Reads the settings with the limits of Workers, opens the store TASK_STORE names through the
 * bindings, and builds the app. A setting it cannot use throws a ConfigError, so the Worker fails
 * to load, as wrangler dev and a deployment show.
 */
export async function createWorkerApp(env: EnvRecord, host: WorkerBindings): Promise<WorkerFetch> {
  const config = parseAppConfig(env, WORKERS_PLATFORM);
  // The request each piece of code runs for, through its awaits and timers, for a store that keeps
  // something per request (OpenedWorkerStore.perRequest).
  const served = new AsyncLocalStorage<RequestWork>();
  const { lists, whereListsLive, perRequest } = await openWorkerStore(env, {
    ...host,
    request: () => served.getStore(),
  });
  // Once per isolate, so `npm start` and a deployment's log say where the lists live. Plain text:
  // an isolate's clock reads 1970 until a request comes, so a JSON log line's time would mislead.
  if (logShows(config.logLevel, "info")) console.log(whereListsLive);
  // With Durable Objects, WebSocket subscribers connect to their list's object, which holds them
  // through hibernation; its response's headers cannot be changed, so the Worker responds with a copy.
  const openSocket =
    lists instanceof DurableLists
      ? async (request: Request, cursor: number, list: string, keyHash?: string) => {
          const res = await lists.openSocket(list, request, cursor, config.maxSubscribers, keyHash);
          return new Response(res.body, { status: res.status, headers: res.headers, webSocket: res.webSocket });
        }
      : undefined;
  const app = createApp({ lists, config, upgradeWebSocket, ...(openSocket === undefined ? {} : { openSocket }) });
  // Knowing which request runs costs a sixth of a small GET on workerd: only such a store pays it.
  if (!perRequest) return app.fetch;
  return (request, bindings, context) => {
    const work = new RequestWork();
    return served.run(work, () => work.serve(async () => app.fetch(request, bindings, context)));
  };
}
