// The Cloudflare Workers entry: the app over the store TASK_STORE names, built once per isolate.
import { env, waitUntil } from "cloudflare:workers";
import { createApp } from "../app.ts";
import { parseAppConfig, WORKERS_PLATFORM } from "../config.ts";
import { openWorkerStore } from "../store/kinds.ts";

// Wrangler finds a Durable Object class only among the exports of the Worker's main module.
export { TaskListObject } from "../store/durable-object/task-list-object.ts";

const config = parseAppConfig({ ...env }, WORKERS_PLATFORM);
const store = await openWorkerStore({ ...env }, { bindings: env, waitUntil });

export default createApp({ store, config });
