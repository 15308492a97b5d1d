import { env } from "cloudflare:workers";
import { createApp } from "../app.ts";
import { parseAppConfig, WORKERS_PLATFORM } from "../config.ts";
import { parseWorkerStoreKind } from "../store/config.ts";
import { durableStore } from "../store/durable-object.ts";
import { MemoryStore } from "../store/memory.ts";

// Wrangler finds a Durable Object class only among the exports of the Worker's main module.
export { TaskListObject } from "../store/durable-object.ts";

const config = parseAppConfig({ ...env }, WORKERS_PLATFORM);
const store = parseWorkerStoreKind({ ...env }) === "durable" ? durableStore(env.TASK_LIST) : new MemoryStore();
const app = createApp({ store, config });

export default app;
