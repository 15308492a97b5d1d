import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import type { RunningServer } from "../support/server.ts";
import { appended, expectMessageBody, listText, postTask, requestHead, send } from "./http.ts";
import { RawConnection } from "./raw-http.ts";

/** Titles the fault cases send in bodies that must never be stored. */
export const NEVER_STORED = ["Cut off mid-body", "Chunked past the limit", "Declared past the limit"];

/** A chunk of a chunked body. */
function chunk(data: string): string {
  return `${data.length.toString(16)}\r\n${data}\r\n`;
}

/** A complete task JSON padded with spaces to `size` bytes: a server that stops reading early sees a valid task. */
function paddedTask(title: string, size: number): string {
  return JSON.stringify({ title, completed: true }).padEnd(size, " ");
}

/**
 * Registers the fault cases against `server`, which must run with MAX_BODY_BYTES = `bodyLimit`.
 * Each case checks what the client gets, that the list did not change, and that the server still
 * answers the next request.
 */
export function describeFaults(server: () => RunningServer, bodyLimit: number): void {
  const jsonHeaders = { "Content-Type": "application/json" };

  test("a client that disconnects mid-body adds nothing and the server keeps serving", async () => {
    const before = await listText(server());
    const body = paddedTask("Cut off mid-body", bodyLimit / 2);
    const connection = new RawConnection(server().baseUrl);
    await connection.connected;
    // The half sent holds the whole task, so a server that took a cut-off body as complete would store it.
    await connection.write(
      requestHead("POST", "/tasks", { ...jsonHeaders, "Content-Length": String(body.length) }) +
        body.slice(0, body.length / 2),
    );
    connection.destroy();

    const next = await postTask(server(), "Served after a client left mid-body");
    expect(next.status).toBe(200);
    expect(await listText(server())).toBe(appended(before, next.text));
  });

  test("a chunked body with no Content-Length is refused with 413 once it passes MAX_BODY_BYTES, before it ends", async () => {
    const before = await listText(server());
    const connection = new RawConnection(server().baseUrl);
    await connection.connected;
    await connection.write(requestHead("POST", "/tasks", { ...jsonHeaders, "Transfer-Encoding": "chunked" }));
    const piece = paddedTask("Chunked past the limit", Math.ceil(bodyLimit / 2));
    // Three pieces pass the limit; the last chunk never comes, so only a server counting as it reads can answer.
    for (let i = 0; i < 3; i++) await connection.write(chunk(piece));
    const res = await connection.response();
    connection.destroy();

    expect(res?.status).toBe(413);
    expect(res?.headers.get("content-type")).toBe("application/json");
    expectMessageBody(res?.body ?? "");
    expect(await listText(server())).toBe(before);
  });

  test("a body whose Content-Length is over MAX_BODY_BYTES is refused with 413 and adds nothing", async () => {
    const before = await listText(server());
    const body = paddedTask("Declared past the limit", bodyLimit * 2);
    const connection = new RawConnection(server().baseUrl);
    await connection.connected;
    await connection.write(
      requestHead("POST", "/tasks", { ...jsonHeaders, "Content-Length": String(body.length) }) + body,
    );
    const res = await connection.response();
    connection.destroy();

    expect(res?.status).toBe(413);
    expectMessageBody(res?.body ?? "");
    expect(await listText(server())).toBe(before);
  });

  test("a Content-Length that understates a body over MAX_BODY_BYTES: only the declared bytes are the body, the rest is refused, nothing is added", async () => {
    const before = await listText(server());
    const declared = 16;
    // What follows the declared bytes reads as a malformed next request; its blank line lets every parser decide.
    const sent = `${" ".repeat(declared)}<script>alert(1)</script>${" ".repeat(bodyLimit * 2)}\r\n\r\n`;
    const connection = new RawConnection(server().baseUrl);
    await connection.connected;
    await connection.write(
      requestHead("POST", "/tasks", { ...jsonHeaders, "Content-Length": String(declared) }) + sent,
    );
    const responses = await connection.responsesUntilClosed();

    expect(responses.length).toBeGreaterThan(0);
    for (const res of responses) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    expect(connection.received).not.toContain("<script");
    expect(await listText(server())).toBe(before);
  });

  test("50 connections sending their headers a byte at a time do not stop other requests from being served", async () => {
    const slowRequest = requestHead("GET", "/tasks", { Connection: "close" });
    const slow = Array.from({ length: 50 }, () => new RawConnection(server().baseUrl));
    try {
      await Promise.all(slow.map((connection) => connection.connected));
      // Every byte but the last goes out one at a time; the last waits until the other requests are answered.
      const dripping = (async () => {
        for (const byte of slowRequest.slice(0, -1)) {
          await Promise.all(slow.map((connection) => connection.write(byte)));
          await sleep(10);
        }
      })();

      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await send(server(), "/tasks");
        await res.body?.cancel();
        statuses.push(res.status);
      }
      statuses.push((await postTask(server(), "Served beside slow clients")).status);
      expect(statuses).toEqual(Array.from({ length: 11 }, () => 200));

      await dripping;
      await Promise.all(slow.map((connection) => connection.write(slowRequest.slice(-1))));
      const answers = await Promise.all(slow.map((connection) => connection.response()));
      expect(answers.map((res) => res?.status)).toEqual(Array.from({ length: 50 }, () => 200));
    } finally {
      for (const connection of slow) connection.destroy();
    }
  });

  test("a method named like a member of Object.prototype gets 405 with Allow or the runtime's own refusal, never a 500", async () => {
    const before = await listText(server());
    // Valid HTTP tokens that Hono's routers would look up on an object's prototype (Deno passes them on).
    for (const method of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const connection = new RawConnection(server().baseUrl);
      await connection.connected;
      await connection.write(requestHead(method, "/tasks", { Connection: "close" }));
      const res = await connection.response();
      connection.destroy();
      // The runtime may refuse a method it does not know before the app sees it: Node's parser with
      // 400, workerd with 501 (RFC 9110's status for a method a server does not implement), Bun by
      // closing the connection. Deno passes it on, and the app returns 405.
      if (res === undefined) continue;
      expect([400, 405, 501], `${method} /tasks`).toContain(res.status);
      if (res.status === 405) expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
    }
    expect(await listText(server())).toBe(before);
  });

  test("none of the refused bodies was stored, and no request was logged as a 500", async () => {
    const titles = (JSON.parse(await listText(server())) as { title: string }[]).map((task) => task.title);
    for (const title of NEVER_STORED) expect(titles).not.toContain(title);
    expect(server().output()).not.toMatch(/"status":5\d\d/);
  });
}
