// A subscriber that stops reading while one task is edited again and again, on a real server: every
// edit counts towards its cut-off, and its cursor brings back the task as it now is.
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { BIG_TITLE, placeFree, post, RawSubscriber } from "./raw-subscriber.ts";

/**
 * Edits after which the stalled subscriber must have been cut off: 50 MiB of titles. Far more than
 * a MiB, since what waits for it is what the server could not hand to the connection: socket
 * buffers take several MiB first, and workerd, whose readers look for changes every 50 ms, may send
 * a burst of edits that outran the list's journal as one event with the task as it now is.
 */
const MAX_EDITS = 100;

/** Registers the check on a server of its own, whose one subscriber slot shows when it is cut off. */
export function describeStalledEdits(runtime: Runtime): void {
  describe(`${runtime} server with MAX_SUBSCRIBERS=1 and one task edited`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn", MAX_SUBSCRIBERS: "1" });

    test("an event stream that stops reading is cut off once a MiB of edits of one task waits for it, and its cursor brings back the task as it now is", async () => {
      const { baseUrl } = server();
      const task = await post(baseUrl, "Edited while nobody reads");
      const stalled = new RawSubscriber(baseUrl, "/tasks/events?after=0");
      await stalled.opened();
      stalled.socket.pause();
      expect(await placeFree(baseUrl)).toBe(false);
      let edits = 0;
      let title = "";
      while (!(await placeFree(baseUrl))) {
        expect(edits, "the stalled subscriber must be cut off before 50 MiB of edits wait for it").toBeLessThan(
          MAX_EDITS,
        );
        title = `${edits} ${BIG_TITLE}`;
        const res = await fetch(`${baseUrl}/tasks/${task.id}`, {
          method: "PATCH",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ title }),
        });
        expect(res.status).toBe(200);
        await res.body?.cancel();
        edits += 1;
      }
      stalled.socket.resume();
      await stalled.closed;
      // Whole events only: the last one may have been cut in the middle.
      const ids = [...stalled.received.matchAll(/^id: (\d+)\nevent: \w+\ndata: .*\n\n/gm)].map((m) => Number(m[1]));
      const cursor = ids.at(-1) ?? 0;
      const resumed = await fetch(`${baseUrl}/tasks/events`, { headers: { "Last-Event-ID": String(cursor) } });
      expect(resumed.status).toBe(200);
      const reader = resumed.body?.getReader();
      const decoder = new TextDecoder();
      const last = JSON.stringify({ id: task.id, title, completed: false });
      let text = "";
      while (!text.includes(last)) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      await reader?.cancel();
      expect(text).toContain(`event: update\ndata: ${last}\n\n`);
    });
  });
}
