// A subscriber catching up on a long list, on a real server: the backlog reaches it in a few large
// writes, many events each, not one write per event.
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { RawSubscriber } from "./raw-subscriber.ts";

/** Tasks in the backlog: about 120 KiB of events, in titles long enough that few POSTs make it. */
const BACKLOG_TASKS = 200;
/** Each task's title: about 560 bytes of its event. */
const TITLE = "x".repeat(500);
/** Tasks posted at once. */
const AT_ONCE = 50;

/** The sizes of the chunks of a chunked body, as they came: the head is skipped. */
function chunkSizes(received: string): number[] {
  const sizes: number[] = [];
  let at = received.indexOf("\r\n\r\n") + 4;
  for (;;) {
    const end = received.indexOf("\r\n", at);
    if (end < 0) return sizes;
    const size = Number.parseInt(received.slice(at, end), 16);
    if (!Number.isInteger(size) || size === 0) return sizes;
    sizes.push(size);
    at = end + 2 + size + 2;
  }
}

/** Registers the check on a server of its own, whose list it fills. */
export function describeCatchUp(runtime: Runtime): void {
  describe(`${runtime} server with a backlog of ${BACKLOG_TASKS} tasks`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn" });

    test("a subscriber catching up from 0 gets the backlog in a few writes of many events each, every task once and in order", async () => {
      const { baseUrl } = server();
      for (let sent = 0; sent < BACKLOG_TASKS; sent += AT_ONCE) {
        await Promise.all(
          Array.from({ length: AT_ONCE }, async (_, i) => {
            const res = await fetch(`${baseUrl}/tasks`, {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ title: `Backlog ${sent + i} ${TITLE}`, completed: false }),
            });
            expect(res.status).toBe(200);
            await res.body?.cancel();
          }),
        );
      }
      const last = BACKLOG_TASKS + 2;
      const subscriber = new RawSubscriber(baseUrl, "/tasks/events?after=0");
      try {
        while (!subscriber.received.includes(`id: ${last}\n`)) {
          expect(subscriber.isClosed, "the stream must not end").toBe(false);
          await new Promise((done) => setTimeout(done, 20));
        }
        while (
          !subscriber.received.includes(`id: ${last}\nevent: task\ndata: `) ||
          !subscriber.received.endsWith("\r\n")
        ) {
          await new Promise((done) => setTimeout(done, 20));
        }
        const ids = [...subscriber.received.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
        expect(ids).toEqual(Array.from({ length: last }, (_, i) => i + 1));
        expect(subscriber.received.toLowerCase()).toContain("transfer-encoding: chunked");
        // About 120 KiB: a couple of 64 KiB writes and the opening comment, where one write per
        // event would be 202 chunks.
        expect(chunkSizes(subscriber.received).length).toBeLessThan(20);
      } finally {
        subscriber.socket.destroy();
      }
    });
  });
}
