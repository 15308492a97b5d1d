import { env } from "cloudflare:workers";
import { createApp } from "../app.ts";
import { listLimits, parseAppConfig, WORKERS_PLATFORM } from "../config.ts";
import { parseWorkerStoreKind } from "../store/config.ts";
import { durableStore } from "../store/durable-object.ts";
import { MemoryStore } from "../store/memory.ts";
import { postgresWorkerStore } from "../store/postgres-worker.ts";

// Wrangler finds a Durable Object class only among the exports of the Worker's main module.
export { TaskListObject } from "../store/durable-object.ts";

const config = parseAppConfig({ ...env }, WORKERS_PLATFORM);
const kind = parseWorkerStoreKind({ ...env });
const store =
  kind === "durable"
    ? durableStore(env.TASK_LIST)
    : kind === "postgres"
      ? postgresWorkerStore({ ...env }, env.TASK_DB, listLimits(config))
      : new MemoryStore();
const app = createApp({ store, config });

export default app;
