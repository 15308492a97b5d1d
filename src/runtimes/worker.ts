// The Cloudflare Workers entry: the app over the store TASK_STORE names, built once per isolate.

import { env, waitUntil } from "cloudflare:workers";
import { AsyncLocalStorage } from "node:async_hooks";
import { RequestWork } from "../store/request-work.ts";
import { createWorkerApp } from "./worker-app.ts";

// Wrangler finds a Durable Object class only among the exports of the Worker's main module.
export { ListDirectoryObject } from "../store/durable-object/list-directory-object.ts";
export { TaskListObject } from "../store/durable-object/task-list-object.ts";

/** The request each piece of code runs for, through its awaits and timers: a store keeps a client per request. */
const served = new AsyncLocalStorage<RequestWork>();
const { app, perRequest } = await createWorkerApp(
  { ...env },
  { bindings: env, waitUntil, request: () => served.getStore() },
);

export default {
  fetch(request: Request, bindings: unknown, context: ExecutionContext): Response | Promise<Response> {
    // Knowing which request runs costs a sixth of a small GET: only a store that keeps a client per request pays it.
    if (!perRequest) return app.fetch(request, bindings, context);
    const work = new RequestWork();
    return served.run(work, () => work.serve(async () => app.fetch(request, bindings, context)));
  },
} satisfies ExportedHandler;
