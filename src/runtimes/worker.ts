// The Cloudflare Workers entry: the app over the store TASK_STORE names, built once per isolate.
import { env, waitUntil } from "cloudflare:workers";
import { createApp } from "../app.ts";
import { parseAppConfig, WORKERS_PLATFORM } from "../config.ts";
import { DurableObjectStore } from "../store/durable-object/durable-store.ts";
import { openWorkerStore } from "../store/kinds.ts";
import { upgradeWebSocket } from "./worker-sockets.ts";

// Wrangler finds a Durable Object class only among the exports of the Worker's main module.
export { TaskListObject } from "../store/durable-object/task-list-object.ts";

const config = parseAppConfig({ ...env }, WORKERS_PLATFORM);
const store = await openWorkerStore({ ...env }, { bindings: env, waitUntil });

// With the Durable Object, WebSocket subscribers connect to the object, which holds them through
// hibernation; its response's headers cannot be changed, so the Worker responds with a copy.
const openSocket =
  store instanceof DurableObjectStore
    ? async (request: Request, cursor: number) => {
        const res = await store.openSocket(request, cursor, config.maxSubscribers);
        return new Response(res.body, { status: res.status, headers: res.headers, webSocket: res.webSocket });
      }
    : undefined;

export default createApp({ store, config, upgradeWebSocket, ...(openSocket === undefined ? {} : { openSocket }) });
