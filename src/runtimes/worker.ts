// The Cloudflare Workers entry: the app over the store TASK_STORE names, built once per isolate.

import { env, waitUntil } from "cloudflare:workers";
import { createWorkerApp } from "./worker-app.ts";

// Wrangler finds a Durable Object class only among the exports of the Worker's main module.
export { ListDirectoryObject } from "./durable-objects/list-directory-object.ts";
export { TaskListObject } from "./durable-objects/task-list-object.ts";

const fetch = await createWorkerApp({ ...env }, { bindings: env, waitUntil });

export default { fetch } satisfies ExportedHandler;
