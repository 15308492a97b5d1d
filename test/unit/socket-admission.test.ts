// WebSocket admission through the app in-process, over a stand-in runtime upgrade: when a slot is taken and given back.
import { defineWebSocketHelper, WSContext, type WSEvents } from "hono/ws";
import { expect, test } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";

const HANDSHAKE = {
  Upgrade: "websocket",
  Connection: "Upgrade",
  "Sec-WebSocket-Version": "13",
  "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
};

/** A socket as the feed sees it, recording what it was sent and how it was closed. */
function fakeSocket(): { context: WSContext; sent: string[]; closed: { code?: number | undefined }[] } {
  const sent: string[] = [];
  const closed: { code?: number | undefined }[] = [];
  const context = new WSContext({
    send: (data) => sent.push(String(data)),
    close: (code) => closed.push({ code }),
    raw: { bufferedAmount: 0 },
    readyState: 1,
  });
  return { context, sent, closed };
}

/**
 * An app with one subscriber slot over a runtime upgrade that `accept` decides about: the events
 * of each accepted socket are kept, so that a test opens and closes it as the runtime would.
 */
function appWithSockets(accept: () => boolean): { app: TaskApp; accepted: WSEvents[] } {
  const accepted: WSEvents[] = [];
  const upgradeWebSocket = defineWebSocketHelper((_c, events) => {
    if (!accept()) return;
    accepted.push(events);
    return new Response(null);
  });
  const app = createApp({
    store: new MemoryStore(),
    config: parseAppConfig({ MAX_SUBSCRIBERS: "1", LOG_LEVEL: "off" }),
    upgradeWebSocket,
  });
  return { app, accepted };
}

/** Whether an event stream gets the one place now. */
async function placeFree(app: TaskApp): Promise<boolean> {
  const res = await app.request("/tasks/events?after=999");
  await res.body?.cancel();
  return res.status === 200;
}

test("a WebSocket handshake the runtime fails returns 400 with a JSON message, and takes no slot", async () => {
  const { app } = appWithSockets(() => false);
  for (let i = 0; i < 3; i++) {
    const res = await app.request("/tasks/events", { headers: HANDSHAKE });
    expect(res.status).toBe(400);
    expect(Object.keys((await res.json()) as object)).toEqual(["message"]);
  }
  expect(await placeFree(app)).toBe(true);
});

test("Upgrade: websocket without Connection: upgrade returns 400 naming Connection, and takes no slot", async () => {
  const { app } = appWithSockets(() => true);
  const res = await app.request("/tasks/events", { headers: { ...HANDSHAKE, Connection: "keep-alive" } });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { message: string }).message).toMatch(/^Connection must include upgrade/);
  expect(await placeFree(app)).toBe(true);
});

test("a WebSocket takes its slot when it opens, not before, and gives it back when it closes", async () => {
  const { app, accepted } = appWithSockets(() => true);
  expect((await app.request("/tasks/events", { headers: HANDSHAKE })).status).toBe(200);
  // Accepted, not yet open: a handshake that never completes holds nothing.
  expect(await placeFree(app)).toBe(true);
  const socket = fakeSocket();
  accepted[0]?.onOpen?.(new Event("open"), socket.context);
  expect(await placeFree(app)).toBe(false);
  const refused = await app.request("/tasks/events", { headers: HANDSHAKE });
  expect(refused.status).toBe(503);
  expect(refused.headers.get("Retry-After")).toBe("1");
  accepted[0]?.onClose?.(new CloseEvent("close"), socket.context);
  expect(await placeFree(app)).toBe(true);
});

test("a WebSocket that opens after the last slot was taken is closed with 1013, and takes none", async () => {
  const { app, accepted } = appWithSockets(() => true);
  for (let i = 0; i < 2; i++) expect((await app.request("/tasks/events", { headers: HANDSHAKE })).status).toBe(200);
  const [first, second] = [fakeSocket(), fakeSocket()];
  accepted[0]?.onOpen?.(new Event("open"), first.context);
  accepted[1]?.onOpen?.(new Event("open"), second.context);
  expect(second.closed).toEqual([{ code: 1013 }]);
  accepted[1]?.onClose?.(new CloseEvent("close"), second.context);
  expect(await placeFree(app)).toBe(false);
  accepted[0]?.onClose?.(new CloseEvent("close"), first.context);
});

test("a subscriber's message up to 4 KiB is ignored, and a larger one closes its socket with 1009", async () => {
  const { app, accepted } = appWithSockets(() => true);
  await app.request("/tasks/events?after=999", { headers: HANDSHAKE });
  const socket = fakeSocket();
  accepted[0]?.onOpen?.(new Event("open"), socket.context);
  accepted[0]?.onMessage?.(new MessageEvent("message", { data: "x".repeat(4096) }), socket.context);
  expect(socket.closed).toEqual([]);
  accepted[0]?.onMessage?.(new MessageEvent("message", { data: "é".repeat(2049) }), socket.context);
  expect(socket.closed).toEqual([{ code: 1009 }]);
  accepted[0]?.onClose?.(new CloseEvent("close"), socket.context);
});
