// Clients that stall, on Node, Bun and Deno: uploads that stop short, headers sent a byte a second,
// idle keep-alive connections. Each waits out a time limit of the server (the connections' shortened
// by TIME_SCALE), so they run with `npm run test:load` only.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, test } from "vitest";
import { bodyStalled } from "../../src/messages.ts";
import { BODY_SILENCE_MS } from "../../src/time-rules.ts";
import { settledMemoryKib } from "../support/process-memory.ts";
import { useServer } from "../support/server-fixture.ts";
import { TIME_SCALE, timeScaled } from "../support/time-scale.ts";
import { listText, requestHead } from "./http.ts";
import { RUNS_LOAD } from "./load-seconds.ts";
import { RawConnection } from "./raw-http.ts";

const MIB = 1024 * 1024;
/** Uploads stalled at once: enough that holding more than their bytes would show in the process's memory. */
const STALLED_UPLOADS = 50;
/** What a stalled upload may hold at most, its megabyte of body included (Deno once held 3.5 MiB each). */
const KIB_PER_STALLED_UPLOAD = 2 * 1024;
/**
 * Growth of the heap in steps, beside what the uploads hold. The runtimes give memory back to the
 * system late if ever (Bun gave back the first round's and kept the second's, then held steady
 * over four more; Node on a busy machine collects nothing between two rounds, so its second adds
 * 40 MiB; Bun once added 52 MiB at its third round after 5 at its second), so three rounds of
 * uploads show that the earlier ones' memory was let go: of the two steps from one round's peak to
 * the next, one at least uses the memory again rather than adds to it, where a leak would add the
 * round's 50 MiB at each.
 */
const HEADROOM_KIB = 32 * 1024;
/** Where the runtime closes a connection whose headers never end, and an idle keep-alive one; Deno does neither. */
const CLOSES_SLOW_CONNECTIONS = { node: true, bun: true, deno: false } as const;
/** Seconds after which Node and Bun close a connection whose head has not ended (docs/access-and-limits.md). */
const HEAD_LIMIT_S = { node: 30, bun: 10, deno: undefined } as const;

for (const runtime of ["node", "bun", "deno"] as const) {
  // At the contract's 10 s of silence: a round's memory is read halfway through it, and the runtimes
  // let go of it late. Measured at TIME_SCALE=0.2, Node's and Bun's second round added 34 and 53
  // MiB to the first's rather than take it again, as they do when the rounds are 10 s long.
  describe.runIf(RUNS_LOAD)(`${runtime} server with uploads that stall`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn" });

    test(`three rounds of ${STALLED_UPLOADS} uploads of 1 MiB that stop one byte short: each is returned 408 after ${BODY_SILENCE_MS / 1000} s of silence and adds nothing, each holds at most 2 MiB meanwhile, and a later round at its peak takes no more memory than the one before`, async () => {
      const before = await listText(server());
      const startKib = await settledMemoryKib(server().memoryKib);
      const first = await stallUploads(server().baseUrl, CLOSES_SLOW_CONNECTIONS[runtime], server().memoryKib);
      const afterFirstKib = await settledMemoryKib(server().memoryKib);
      const second = await stallUploads(server().baseUrl, CLOSES_SLOW_CONNECTIONS[runtime], server().memoryKib);
      const afterSecondKib = await settledMemoryKib(server().memoryKib);
      const third = await stallUploads(server().baseUrl, CLOSES_SLOW_CONNECTIONS[runtime], server().memoryKib);
      console.log(
        `${runtime}, ${STALLED_UPLOADS} stalled uploads: ${startKib} KiB at start, ${first} KiB while stalled, ${afterFirstKib} KiB once answered; again ${second} KiB while stalled, ${afterSecondKib} KiB once answered; a third time ${third} KiB while stalled`,
      );
      expect(first - startKib).toBeLessThanOrEqual(STALLED_UPLOADS * KIB_PER_STALLED_UPLOAD + HEADROOM_KIB);
      expect(Math.min(second - first, third - second)).toBeLessThanOrEqual(HEADROOM_KIB);
      expect(await listText(server())).toBe(before);
    });
  });

  const closes = RUNS_LOAD && CLOSES_SLOW_CONNECTIONS[runtime];
  describe.runIf(closes)(`${runtime} server at TIME_SCALE=${TIME_SCALE} with connections that stall`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn", ...timeScaled() });

    test(`a connection that sends its headers a byte a second is closed before they end (after ${HEAD_LIMIT_S[runtime]} s), and others are served meanwhile`, async () => {
      const slow = new RawConnection(server().baseUrl);
      await slow.connected;
      const request = requestHead("GET", "/tasks", { "User-Agent": "a client sending a byte a second".repeat(4) });
      let sent = 0;
      try {
        while (!slow.isClosed && sent < request.length - 1) {
          await slow.write(request.charAt(sent));
          sent += 1;
          await sleep(1_000);
        }
        expect(slow.isClosed, "the server waited for the whole head").toBe(true);
        expect((await listText(server())).length).toBeGreaterThan(0);
        // Node says 408 as it closes; Bun closes without a word. Neither answers the request.
        for (const res of await slow.responsesUntilClosed()) expect(res.status).toBe(408);
      } finally {
        slow.destroy();
      }
    }, 90_000);

    test(`an idle keep-alive connection is closed after its last answer (after ${30 * TIME_SCALE} s; 8 s on Bun)`, async () => {
      const idle = new RawConnection(server().baseUrl);
      await idle.connected;
      await idle.write(requestHead("GET", "/tasks", {}));
      const responses = await idle.responsesUntilClosed();
      expect(responses.map((res) => res.status)).toEqual([200]);
    }, 60_000);
  });
}

/**
 * Opens {@link STALLED_UPLOADS} uploads of 1 MiB that send all but their last byte, checks each is
 * returned 408 with the contract's message (and its connection closed, when `closes`), and returns
 * the server's memory while they stalled, in KiB.
 */
async function stallUploads(baseUrl: string, closes: boolean, memoryKib: () => number): Promise<number> {
  const body = JSON.stringify({ title: "Stalled one byte short", completed: false }).padEnd(MIB, " ");
  const head = requestHead("POST", "/tasks", { "Content-Type": "application/json", "Content-Length": String(MIB) });
  const uploads = Array.from({ length: STALLED_UPLOADS }, () => new RawConnection(baseUrl));
  try {
    await Promise.all(uploads.map((upload) => upload.connected));
    await Promise.all(uploads.map((upload) => upload.write(head + body.slice(0, -1))));
    // Halfway through the silence the server has read what was sent, and answered nothing yet.
    await sleep(BODY_SILENCE_MS / 2);
    const stalledKib = memoryKib();
    const answers = await Promise.all(uploads.map((upload) => upload.response()));
    for (const answer of answers) {
      expect(answer?.status).toBe(408);
      expect(answer?.headers.get("content-type")).toBe("application/json");
      expect(answer?.body).toBe(JSON.stringify({ message: bodyStalled(BODY_SILENCE_MS / 1000) }));
    }
    // Deno keeps a connection open after its response until the client closes it (docs/operating.md).
    if (closes) await Promise.all(uploads.map((upload) => upload.responsesUntilClosed()));
    return stalledKib;
  } finally {
    for (const upload of uploads) upload.destroy();
  }
}
