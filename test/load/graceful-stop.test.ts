// A server stopped by SIGTERM while a POST's body is still arriving, on Node, Bun and Deno: what
// the POST, a client arriving during the stop and an idle keep-alive connection each get.
import { get } from "node:http";
import { describe, expect, test } from "vitest";
import { STOPPING } from "../../src/messages.ts";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { requestHead } from "./http.ts";
import { RawConnection } from "./raw-http.ts";

/** What a subscriber that connects while the server stops gets: docs/operating.md says which. */
type Arrival =
  | { readonly refused: true }
  | { readonly reset: true }
  | { readonly status: number; readonly retryAfter: string | null; readonly body: string };

/** Where a new connection is refused at once, and where it is still answered until the requests in flight end. */
const ARRIVAL: Readonly<Record<Exclude<Runtime, "workerd">, "refused" | "503">> = {
  node: "refused",
  bun: "refused",
  deno: "503",
};

for (const runtime of ["node", "bun", "deno"] as const) {
  describe(`${runtime} server stopped while a POST's body is arriving`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn" });

    test(`the POST completes with 200 and its task, a subscriber arriving meanwhile is ${ARRIVAL[runtime] === "refused" ? "refused a connection" : "returned 503 with Retry-After"}, an idle keep-alive connection is closed, and the server exits with 0`, async () => {
      const { baseUrl, terminate } = server();
      const idle = new RawConnection(baseUrl);
      await idle.connected;
      await idle.write(requestHead("GET", "/tasks", {}));
      expect((await idle.response())?.status).toBe(200);

      const body = JSON.stringify({ title: "Sent across a stop", completed: false }).padEnd(4_000, " ");
      const upload = new RawConnection(baseUrl);
      await upload.connected;
      await upload.write(
        requestHead("POST", "/tasks", { "Content-Type": "application/json", "Content-Length": String(body.length) }) +
          body.slice(0, body.length / 2),
      );
      // The upload's head is read before a later request on another connection is answered.
      const later = await fetch(`${baseUrl}/tasks`);
      await later.text();
      expect(later.status).toBe(200);
      expect(terminate).toBeDefined();
      const exited = terminate?.();
      // The stop has begun once a newcomer is not served. On Node and Bun, one that comes in its
      // very first moment may get the 503, or have its connection reset, before connections are refused.
      let arrival = await subscribe(baseUrl);
      while ("status" in arrival && arrival.status === 200) arrival = await subscribe(baseUrl);
      const stopping = { status: 503, retryAfter: "1", body: JSON.stringify({ message: STOPPING }) };
      if (ARRIVAL[runtime] === "refused") {
        while (!("refused" in arrival)) {
          if ("status" in arrival) expect(arrival).toEqual(stopping);
          arrival = await subscribe(baseUrl);
        }
        // Closed at once, while the upload still holds the server.
        await idle.responsesUntilClosed();
        expect(upload.isClosed).toBe(false);
      } else {
        expect(arrival).toEqual(stopping);
      }

      await upload.write(body.slice(body.length / 2));
      const answer = await upload.response();
      expect(answer?.status).toBe(200);
      expect(JSON.parse(answer?.body ?? "")).toMatchObject({ title: "Sent across a stop", completed: false });
      await idle.responsesUntilClosed();
      expect(await exited).toBe(0);
    });
  });
}

/** Asks for the event stream once on a connection of its own: the response, or that the connection was refused or reset. */
function subscribe(baseUrl: string): Promise<Arrival> {
  return new Promise((done, fail) => {
    const request = get(`${baseUrl}/tasks/events`, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        body += text;
      });
      const arrival = { status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] ?? null };
      // A server that has not seen the signal yet serves the stream; the caller asks again.
      if (res.statusCode === 200) {
        request.destroy();
        setTimeout(() => done({ ...arrival, body: "" }), 20);
      } else res.on("end", () => done({ ...arrival, body }));
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") done({ refused: true });
      else if (error.code === "ECONNRESET") done({ reset: true });
      else if (!request.destroyed) fail(error);
    });
  });
}
