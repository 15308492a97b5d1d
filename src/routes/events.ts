// Following the list: GET /tasks/events serves Server-Sent Events, or with `Upgrade: websocket` a
// WebSocket, from the reader's cursor on.

import { badCursor, badHandshake, TOO_MANY_SUBSCRIBERS } from "../messages.ts";
import type { Operation } from "../pages/openapi.ts";
import { header, parameter, response, schema } from "../pages/openapi-parts.ts";
import type { ListScope } from "./list-scope.ts";
import { READ_ACCESS, type Route, type RouteContext } from "./route.ts";
import { subscription } from "./subscription.ts";

/** Where the list's changes are followed: Server-Sent Events, or a WebSocket. */
const EVENTS_PATH = "/tasks/events";
const EVENT_STREAM_TYPE = "text/event-stream";

/**
 * GET and HEAD of the list's changes, for each of `scopes` (the default list's first): one count
 * of subscribers holds for them all.
 */
export function eventRoutes(
  { config, upgradeWebSocket, openSocket, closing }: RouteContext,
  scopes: readonly ListScope[],
): Route[][] {
  const handler = subscription({
    maxSubscribers: config.maxSubscribers,
    keepAliveMs: config.timeRules.keepAliveMs,
    closing,
    upgradeWebSocket,
    openSocket,
  });
  return scopes.map((scope) => [
    {
      paths: [EVENTS_PATH],
      tag: "events",
      cors: true,
      methods: {
        GET: {
          ...READ_ACCESS,
          operation: followTasks(config.maxSubscribers),
          head: {
            operationId: "headTaskEvents",
            summary: "What GET returns, without the body; nothing is followed",
            without: ["101", "503"],
          },
          handler: handler(scope),
        },
      },
    },
  ]);
}

const DESCRIPTION =
  'Every change has a change number, one counter per list in the order changes took effect. The stream first brings the cursor (Last-Event-ID, else `after`, else 0) up to date with one event per task whose last change is after it, in change order, then sends each later change once, in order. Events: `event: task` (a task created after the cursor, `data:` its JSON exactly as GET serves it), `event: update` (a task changed since, its whole JSON), `event: delete` (`data: {"id":N}`), each with `id: <change number>`; `event: reset` (`data: {}`, no id) when the cursor is older than the deletions the list remembers, newer than the list, or one a deleted list gave before its name was made again: drop what you hold, the events after it give the whole list. `event: gone` (`data: {}`, no id) when the list is deleted: the stream then ends, and subscribing again answers 410. `event: revoked` (`data: {}`, no id) when the list key the subscription was opened with is revoked or expires: the stream then ends, within a second. A client that applies events by id holds the list exactly. A comment line keeps a quiet stream open every 15 s. A subscriber that stops reading is cut off once 1 MiB of events wait for it; it comes back with its cursor and misses nothing.';

function followTasks(maxSubscribers: number): Operation {
  return {
    operationId: "followTasks",
    summary: "Follow the list's changes from a change number",
    description: `${DESCRIPTION} With \`Upgrade: websocket\` the same events come as WebSocket text messages, one per event: \`{"id": <change number>, "event": "task" | "update" | "delete", "data": ...}\`, or \`{"event": "reset", "data": {}}\`, or \`{"event": "gone", "data": {}}\` before the socket closes with 1000, or \`{"event": "revoked", "data": {}}\` before it closes with 1008.`,
    parameters: [parameter("LastEventId"), parameter("AfterChange")],
    responses: {
      "101": { description: "Switching to a WebSocket that carries one text message per event" },
      "200": {
        description: "The event stream; it stays open",
        headers: { "Cache-Control": header("CacheControl") },
        content: { [EVENT_STREAM_TYPE]: { schema: { type: "string" } } },
      },
      "400": {
        description:
          "`after` or Last-Event-ID is not a whole number of at most 15 digits (each is checked whenever it is sent), or a WebSocket handshake lacks what RFC 6455 asks",
        content: {
          "application/json": {
            schema: schema("Error"),
            examples: {
              after: { value: { message: badCursor("after", "change number") } },
              lastEventId: { value: { message: badCursor("Last-Event-ID", "change number") } },
              handshake: { value: { message: badHandshake("Sec-WebSocket-Key") } },
            },
          },
        },
      },
      "503": {
        ...response("StoreUnavailable"),
        description: `MAX_SUBSCRIBERS (${maxSubscribers}) follow the list already ("${TOO_MANY_SUBSCRIBERS}"), the server is stopping, or the store cannot be reached: try again after Retry-After`,
      },
    },
  };
}
