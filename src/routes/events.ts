// Following the list: GET /tasks/events serves Server-Sent Events, or with `Upgrade: websocket` a
// WebSocket, from the reader's cursor on.
import { subscription } from "../live/subscribe.ts";
import { badCursor, TOO_MANY_SUBSCRIBERS } from "../messages.ts";
import type { Operation } from "../pages/openapi.ts";
import { errorResponse, header, parameter, response } from "../pages/openapi-parts.ts";
import type { Route, RouteContext } from "./route.ts";

/** Where the list's changes are followed: Server-Sent Events, or a WebSocket. */
const EVENTS_PATH = "/tasks/events";
const EVENT_STREAM_TYPE = "text/event-stream";

/** GET and HEAD of the list's changes. */
export function eventRoutes({ store, config, upgradeWebSocket, openSocket, closing }: RouteContext): Route[] {
  return [
    {
      paths: [EVENTS_PATH],
      tag: "events",
      cors: true,
      methods: {
        GET: {
          access: "read",
          operation: followTasks(config.maxSubscribers),
          head: {
            operationId: "headTaskEvents",
            summary: "What GET returns, without the body; nothing is followed",
            without: ["101", "503"],
          },
          handler: subscription({
            store,
            maxSubscribers: config.maxSubscribers,
            closing,
            upgradeWebSocket,
            openSocket,
          }),
        },
      },
    },
  ];
}

const DESCRIPTION =
  "Each task is one event: `id: <task id>`, `event: task`, `data: <the task's JSON exactly as GET serves it>`. The stream sends every task after the cursor (Last-Event-ID, else `after`, else 0) in id order, then each task appended later, once, in id order. A comment line keeps a quiet stream open every 15 s. A subscriber that stops reading is cut off once 1 MiB of new tasks wait for it; it comes back with its cursor and misses nothing.";

function followTasks(maxSubscribers: number): Operation {
  return {
    operationId: "followTasks",
    summary: "Follow the list's changes from a cursor",
    description: `${DESCRIPTION} With \`Upgrade: websocket\` the same tasks come as WebSocket text messages, one per task, each the task's JSON.`,
    parameters: [parameter("LastEventId"), parameter("After")],
    responses: {
      "101": { description: "Switching to a WebSocket that carries one text message per task" },
      "200": {
        description: "The event stream; it stays open",
        headers: { "Cache-Control": header("CacheControl") },
        content: { [EVENT_STREAM_TYPE]: { schema: { type: "string" } } },
      },
      "400": errorResponse(
        "The cursor is not a whole number of at most 15 digits, or a WebSocket handshake lacks what RFC 6455 asks",
        badCursor("after"),
      ),
      "503": {
        ...response("StoreUnavailable"),
        description: `MAX_SUBSCRIBERS (${maxSubscribers}) follow the list already ("${TOO_MANY_SUBSCRIBERS}"), the server is stopping, or the store cannot be reached: try again after Retry-After`,
      },
    },
  };
}
