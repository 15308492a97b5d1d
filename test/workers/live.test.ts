import { exports } from "cloudflare:workers";
import { expect, test } from "vitest";

const decoder = new TextDecoder();
/** A title of 256 KiB: five of them are more than a MiB. */
const BIG = "x".repeat(256 * 1024);

function post(title: string): Promise<Response> {
  return exports.default.fetch("http://example.com/tasks", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ title, completed: false }),
  });
}

// wrangler dev's local proxy reads a Worker's stream whatever its client does, so a subscriber
// that stops reading is shown here, in workerd itself, where nothing stands between.
test("in workerd, an event stream that stops reading is cut off once more than a MiB of new tasks waits for it", async () => {
  const res = await exports.default.fetch("http://example.com/tasks/events?after=2");
  expect(res.status).toBe(200);
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error("An event stream must have a body");
  for (let i = 0; i < 6; i++) expect((await post(BIG)).status).toBe(200);
  // The reader polls the isolate's list every 50 ms: give it a few looks.
  await new Promise((done) => setTimeout(done, 300));
  let received = "";
  let ended: unknown;
  for (;;) {
    try {
      const { done, value } = await reader.read();
      if (done) break;
      received += decoder.decode(value);
    } catch (error) {
      ended = error;
      break;
    }
  }
  expect(ended).toBeInstanceOf(Error);
  const ids = [...received.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
  expect(ids.length).toBeLessThan(6);
  expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 3 + i));
});
