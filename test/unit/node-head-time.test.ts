// Node's limit on a request's head: a head that came in time is answered even when the loop was
// held up past the limit (Node's own check answered it 408), while a head that never ends is refused.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, test } from "vitest";
import { limitHeadTime } from "../../src/runtimes/node-head-time.ts";
import { RawConnection } from "../load/raw-http.ts";

const HEAD_MS = 200;
const IDLE_MS = 100;
const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

/** Holds the loop up for `ms`, as a synchronous SQLite write on a slow disk does. */
function holdLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** A server with the limit whose requests `answer` answers (200 "ok" by default); resolves with its URL. */
async function serve(answer: (res: ServerResponse) => void = (res) => res.end("ok")): Promise<string> {
  const started = createServer({ headersTimeout: 0 }, (_req, res) => answer(res));
  server = started;
  limitHeadTime(started, HEAD_MS, IDLE_MS);
  await new Promise<void>((done) => started.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(started.address() as AddressInfo).port}`;
}

describe("the limit on a request's head on Node", () => {
  test("a head that came while the loop was held up past the limit is answered, not refused", async () => {
    const url = await serve();
    const accepted = new Promise<void>((done) => server?.once("connection", () => done()));
    const client = new RawConnection(url);
    await client.connected;
    await accepted;
    try {
      // The head is with the kernel at once; the server reads it only after the hold.
      const sent = client.write(GET);
      holdLoop(HEAD_MS * 3);
      await sent;
      const response = await client.response();
      expect(response?.status).toBe(200);
      expect(response?.body).toBe("ok");
    } finally {
      client.destroy();
    }
  });

  test("a head that never ends is refused with 408 and its connection closed", async () => {
    const url = await serve();
    const client = new RawConnection(url);
    await client.connected;
    try {
      await client.write("GET / HTTP/1.1\r\nHo");
      const responses = await client.responsesUntilClosed();
      expect(responses.map((res) => res.status)).toEqual([408]);
    } finally {
      client.destroy();
    }
  });

  test("a kept-alive connection whose next head never ends is refused with 408 after its answer", async () => {
    const url = await serve();
    const client = new RawConnection(url);
    await client.connected;
    try {
      await client.write(GET);
      expect((await client.response())?.status).toBe(200);
      await client.write("GET / HTTP/1.1\r\nHo");
      const responses = await client.responsesUntilClosed();
      expect(responses.map((res) => res.status)).toEqual([200, 408]);
    } finally {
      client.destroy();
    }
  });

  test("a response that takes longer than the limit, as an event stream does, is not cut", async () => {
    const url = await serve((res) => {
      res.write("first ");
      setTimeout(() => res.end("last"), (HEAD_MS + IDLE_MS) * 3);
    });
    const client = new RawConnection(url);
    await client.connected;
    try {
      await client.write(`GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const responses = await client.responsesUntilClosed();
      expect(responses.map((res) => res.status)).toEqual([200]);
      expect(client.received).toContain("last");
    } finally {
      client.destroy();
    }
  });

  test("an upgraded connection is left to its new protocol", async () => {
    const url = await serve();
    const upgraded: Duplex[] = [];
    server?.on("upgrade", (_req, socket: Duplex) => {
      upgraded.push(socket);
      socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n");
    });
    const client = new RawConnection(url);
    await client.connected;
    try {
      await client.write("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n");
      expect((await client.response())?.status).toBe(101);
      await sleep((HEAD_MS + IDLE_MS) * 3);
      expect(client.isClosed).toBe(false);
      expect(client.received).not.toContain("408");
    } finally {
      client.destroy();
      // The server no longer counts an upgraded connection as its own: it would wait for it to close.
      for (const socket of upgraded) socket.destroy();
    }
  });
});
