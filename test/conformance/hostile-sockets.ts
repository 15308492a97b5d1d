// WebSocket handshakes and frames that clients' libraries refuse to send, written on raw sockets to
// a real server: refusals are 4xx with the contract's JSON message and take no subscriber slot, a
// subscriber may not send big messages, and one that vanished loses its slot.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import { expectMessageBody, requestHead } from "../load/http.ts";
import { RawConnection, type RawResponse } from "../load/raw-http.ts";
import type { RunningServer, Runtime } from "../support/server.ts";
import { bearerSocket } from "../support/subscriber-readers.ts";

/** A valid Sec-WebSocket-Key: 16 bytes in base64. */
const KEY = "dGhlIHNhbXBsZSBub25jZQ==";
/** A cursor newer than the list: after a reset and the list, the socket gets nothing unless a test writes. */
const QUIET_PATH = "/tasks/events?after=999999999";
/**
 * Seconds a subscriber may keep its slot without answering a ping on a server at TIME_SCALE=0.1:
 * its two pings take 4 s there (40 s unscaled, docs/live-changes.md), Bun's about 8 s since its
 * timers tick every 4 s; the rest is for a busy machine.
 */
const SLOT_FREED_S = 30;

/** How a test reaches the server: its base path and the read token, if it needs one. */
export interface SocketTarget {
  readonly basePath: string;
  readonly token: string | undefined;
  readonly maxSubscribers: number;
}

/** The headers of a WebSocket handshake, with `changes` made (undefined drops a header). */
function handshake(target: SocketTarget, changes: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": KEY,
    ...(target.token === undefined ? {} : { Authorization: `Bearer ${target.token}` }),
    ...changes,
  };
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** Sends one handshake on a raw connection and resolves with the response's head (and body, unless it switched). */
async function upgrade(
  server: RunningServer,
  target: SocketTarget,
  changes: Record<string, string | undefined> = {},
  path = QUIET_PATH,
): Promise<{ connection: RawConnection; response: RawResponse | undefined }> {
  const connection = new RawConnection(server.baseUrl);
  await connection.connected;
  await connection.write(requestHead("GET", `${target.basePath}${path}`, handshake(target, changes)));
  return { connection, response: await connection.response() };
}

/** Expects a refusal with `status` and the contract's JSON message. */
function expectRefusal(response: RawResponse | undefined, status: number): void {
  expect(response?.status).toBe(status);
  expect(response?.headers.get("content-type")).toBe("application/json");
  expectMessageBody(response?.body ?? "");
}

/** A client frame (masked, as RFC 6455 asks of clients) whose header declares `declared` bytes, with `payload` after it. */
function clientFrame(opcode: number, declared: number, payload: Buffer): Buffer {
  const head =
    declared < 126
      ? Buffer.from([0x80 | opcode, 0x80 | declared])
      : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), bigLength(declared)]);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] ?? 0)));
  return Buffer.concat([head, mask, masked]);
}

function bigLength(length: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(length));
  return bytes;
}

/** The frames the server sent after its 101, as opcode and payload (server frames are not masked). */
function serverFrames(received: string): { opcode: number; payload: Buffer }[] {
  let bytes = Buffer.from(received.slice(received.indexOf("\r\n\r\n") + 4), "latin1");
  const frames: { opcode: number; payload: Buffer }[] = [];
  while (bytes.length >= 2) {
    let length = (bytes[1] ?? 0) & 0x7f;
    let offset = 2;
    if (length === 126) [length, offset] = [bytes.readUInt16BE(2), 4];
    else if (length === 127) [length, offset] = [Number(bytes.readBigUInt64BE(2)), 10];
    if (bytes.length < offset + length) break;
    frames.push({ opcode: (bytes[0] ?? 0) & 0x0f, payload: bytes.subarray(offset, offset + length) });
    bytes = bytes.subarray(offset + length);
  }
  return frames;
}

/** The close code the server sent, once it sent one or closed the connection (undefined then). */
async function closeCode(connection: RawConnection): Promise<number | undefined> {
  for (;;) {
    const close = serverFrames(connection.received).find((frame) => frame.opcode === 0x8);
    if (close !== undefined) return close.payload.length >= 2 ? close.payload.readUInt16BE(0) : 1005;
    if (connection.closed) return undefined;
    await sleep(20);
  }
}

/**
 * Registers the hostile handshake and frame cases against `server`, which runs with
 * MAX_SUBSCRIBERS = `target.maxSubscribers` (and a read token, if `target.token` is set).
 */
export function describeHostileSockets(runtime: Runtime, server: () => RunningServer, target: SocketTarget): void {
  const malformed: Record<string, string | undefined>[] = [
    { "Sec-WebSocket-Version": "99" },
    { "Sec-WebSocket-Key": undefined },
    { "Sec-WebSocket-Key": "short" },
    { Connection: undefined },
    { Connection: "keep-alive" },
    { "Sec-WebSocket-Protocol": "two words" },
  ];
  test(`malformed WebSocket handshakes return 400 with a JSON message, and ${target.maxSubscribers} of each leave every subscriber slot free`, async () => {
    for (const changes of malformed) {
      for (let i = 0; i < target.maxSubscribers; i++) {
        const { connection, response } = await upgrade(server(), target, changes);
        connection.destroy();
        expectRefusal(response, 400);
      }
    }
    const { connection, response } = await upgrade(server(), target);
    connection.destroy();
    expect(response?.status).toBe(101);
  });

  test("Upgrade: WebSocket, in any case, opens the socket as RFC 6455 allows", async () => {
    const { connection, response } = await upgrade(server(), target, { Upgrade: "WebSocket", Connection: "upgrade" });
    connection.destroy();
    expect(response?.status).toBe(101);
  });

  if (target.token !== undefined) {
    test("a WebSocket handshake without a token returns 401 with the JSON message", async () => {
      const { connection, response } = await upgrade(server(), target, { Authorization: undefined });
      connection.destroy();
      expectRefusal(response, 401);
    });
  }

  test("a WebSocket handshake with a malformed cursor returns 400 with the JSON message", async () => {
    const { connection, response } = await upgrade(server(), target, {}, "/tasks/events?after=-1");
    connection.destroy();
    expectRefusal(response, 400);
  });

  test("a WebSocket handshake past MAX_SUBSCRIBERS returns 503 with Retry-After and the JSON message", async () => {
    const held: RawConnection[] = [];
    try {
      let refused: RawResponse | undefined;
      while (refused === undefined) {
        expect(held.length).toBeLessThanOrEqual(target.maxSubscribers);
        const { connection, response } = await upgrade(server(), target);
        held.push(connection);
        if (response?.status !== 101) refused = response;
      }
      expectRefusal(refused, 503);
      expect(refused.headers.get("retry-after")).not.toBeNull();
    } finally {
      for (const connection of held) connection.destroy();
    }
    // The server sees the closes a moment later, and the next tests need a slot.
    (await enterWhenFree(server(), target, "the subscribers that closed must free their slots")).destroy();
  });

  test("a message over 4 KiB closes the socket with 1009", async () => {
    const { connection, response } = await upgrade(server(), target);
    try {
      expect(response?.status).toBe(101);
      await connection.write(clientFrame(0x1, 8 * 1024, Buffer.alloc(8 * 1024, "x")).toString("latin1"));
      expect(await closeCode(connection)).toBe(1009);
    } finally {
      connection.destroy();
    }
  });

  // Deno gathers a message whole before the service sees it: describeVanishedSubscriber shows it let go.
  if (runtime !== "deno") {
    test("a frame that declares 50 MiB is refused after its header, with 1009 or the connection closed", async () => {
      const { connection, response } = await upgrade(server(), target);
      try {
        expect(response?.status).toBe(101);
        await connection.write(clientFrame(0x2, 50 * 1024 ** 2, Buffer.alloc(64 * 1024)).toString("latin1"));
        expect([1009, undefined]).toContain(await closeCode(connection));
      } finally {
        connection.destroy();
      }
    });
  }
}

/**
 * Opens a subscriber once a slot is free, as the server sees closed sockets go a moment after they
 * close: refused with 503 until then, failing with `why` after {@link SLOT_FREED_S}.
 */
async function enterWhenFree(server: RunningServer, target: SocketTarget, why: string): Promise<RawConnection> {
  const deadline = Date.now() + SLOT_FREED_S * 1000;
  for (;;) {
    const { connection, response } = await upgrade(server, target);
    if (response?.status === 101) return connection;
    connection.destroy();
    expect(response?.status).toBe(503);
    expect(Date.now(), why).toBeLessThan(deadline);
    await sleep(100);
  }
}

/**
 * Fills every subscriber slot of the server with WebSockets that answer its pings, as a browser's
 * do, and returns them, for the caller to close. A slot an earlier subscriber held may come free
 * only a moment after it closed: a refusal is tried again until every slot is ours, for at most
 * {@link SLOT_FREED_S}, so the server is full of these alone when this resolves.
 */
async function occupyEverySlot(server: RunningServer, target: SocketTarget): Promise<WebSocket[]> {
  const url = `${server.baseUrl.replace(/^http/, "ws")}${target.basePath}${QUIET_PATH}`;
  const deadline = Date.now() + SLOT_FREED_S * 1000;
  // Node's WebSocket (undici) answers pings itself.
  const held: WebSocket[] = [];
  try {
    while (held.length < target.maxSubscribers) {
      const socket = bearerSocket(url, target.token);
      const opened = await new Promise<boolean>((resolve) => {
        socket.addEventListener("open", () => resolve(true));
        socket.addEventListener("error", () => resolve(false));
      });
      if (opened) {
        held.push(socket);
        continue;
      }
      expect(Date.now(), "the slots earlier subscribers held must come free").toBeLessThan(deadline);
      await sleep(100);
    }
    return held;
  } catch (error) {
    for (const socket of held) socket.close();
    throw error;
  }
}

/**
 * Fills every slot with subscribers that answer pings and shows the server full, then frees one
 * slot for the subscriber under test, which `enter` makes (it must get 101), runs `misbehave`, and
 * resolves once a new WebSocket is taken again, which only that subscriber can have made room for;
 * fails after {@link SLOT_FREED_S}. The server is shown full before the subscriber under test
 * exists, so a busy machine that takes long to fill the slots cannot let it go first.
 */
async function placeFreed(
  server: RunningServer,
  target: SocketTarget,
  misbehave: (subject: RawConnection) => Promise<void> = async () => {},
): Promise<void> {
  const held = await occupyEverySlot(server, target);
  let subject: RawConnection | undefined;
  try {
    // Full, not refused for another reason: a new subscriber is turned away for want of a slot.
    const full = await upgrade(server, target);
    full.connection.destroy();
    expectRefusal(full.response, 503);
    held.pop()?.close();
    subject = await enterWhenFree(server, target, "the filler that closed must free its slot");
    await misbehave(subject);
    const deadline = Date.now() + SLOT_FREED_S * 1000;
    for (;;) {
      const { connection, response } = await upgrade(server, target);
      connection.destroy();
      if (response?.status === 101) return;
      expect(response?.status).toBe(503);
      expect(Date.now(), "the subscriber holding the slot must lose it").toBeLessThan(deadline);
      await sleep(100);
    }
  } finally {
    subject?.destroy();
    for (const socket of held) socket.close();
  }
}

/**
 * Registers, on a server whose pings TIME_SCALE brings a few seconds apart and which nothing else
 * uses while they run: a WebSocket subscriber that never answers the server's pings (a client that
 * vanished without closing) loses its slot, and a new subscriber gets it.
 */
export function describeVanishedSubscriber(server: () => RunningServer, target: SocketTarget, scale: number): void {
  test(
    `a subscriber that stalls inside a frame declaring 50 MiB is dropped within ${SLOT_FREED_S} s at TIME_SCALE=${scale}, and its slot comes free`,
    async () => {
      // Node and Bun refuse the frame from its header; Deno gathers it, but its sender cannot
      // answer a ping from inside a frame, so Deno drops it when the ping goes unanswered.
      await placeFreed(server(), target, (stalled) =>
        stalled.write(clientFrame(0x2, 50 * 1024 ** 2, Buffer.alloc(1024 ** 2)).toString("latin1")),
      );
    },
    (SLOT_FREED_S + 30) * 1000,
  );

  test(
    `a WebSocket subscriber that answers no ping is pinged, and loses its slot within ${SLOT_FREED_S} s at TIME_SCALE=${scale}`,
    async () => {
      let silent: RawConnection | undefined;
      // The raw connection reads, so the server sees a live TCP peer that never answers.
      await placeFreed(server(), target, async (subject) => {
        silent = subject;
      });
      expect(serverFrames(silent?.received ?? "").some((frame) => frame.opcode === 0x9)).toBe(true);
    },
    (SLOT_FREED_S + 30) * 1000,
  );
}
