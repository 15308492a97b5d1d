// A POST body that stops arriving midway is refused with 408 once it has been silent for
// BODY_SILENCE_MS, on the clock of fake timers; one that keeps coming, however slowly, is read.
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { TaskApp } from "../../src/app.ts";
import { bodyStalled } from "../../src/messages.ts";
import { BODY_SILENCE_MS } from "../../src/time-rules.ts";
import { appFrom, ENTRY_POINTS, expectJsonError, snapshot, utf8 } from "./helpers.ts";

const TASK = utf8(JSON.stringify({ title: "Sent in pieces", completed: false }));

/** A body that hands out `pieces` with `pauseMs` of silence before each, then either ends or falls silent. */
function slowBody(pieces: readonly Uint8Array[], pauseMs: number, ends: boolean) {
  let next = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const piece = pieces[next++];
      if (piece === undefined) {
        if (ends) controller.close();
        // Otherwise the client has gone quiet: this pull never settles.
        else await new Promise(() => {});
        return;
      }
      await new Promise((done) => setTimeout(done, pauseMs));
      controller.enqueue(piece);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, wasCancelled: () => cancelled };
}

function post(app: TaskApp, path: string, body: ReadableStream<Uint8Array>): Promise<Response> {
  return Promise.resolve(app.request(new Request(`http://localhost${path}`, { method: "POST", body, duplex: "half" })));
}

describe.each(ENTRY_POINTS)("a POST body that stops arriving on $path", ({ env, path }) => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test(`is refused with 408 and Connection: close after ${BODY_SILENCE_MS / 1000} s without a byte, adds nothing, and is cancelled`, async () => {
    const app = appFrom(env);
    const before = await snapshot(app, path);
    const body = slowBody([TASK.slice(0, 10)], 0, false);
    let answered: Response | undefined;
    const answer = post(app, path, body.stream).then((res) => {
      answered = res;
      return res;
    });
    await vi.advanceTimersByTimeAsync(BODY_SILENCE_MS - 1);
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    // The limit is confirmed a turn later, at the same time.
    await vi.runOnlyPendingTimersAsync();
    const res = await answer;
    expect(res.headers.get("Connection")).toBe("close");
    await expectJsonError(res, 408, bodyStalled(BODY_SILENCE_MS / 1000));
    expect(body.wasCancelled()).toBe(true);
    expect(await snapshot(app, path)).toEqual(before);
  });

  test("is read whole when each piece comes within the silence, however long the whole takes", async () => {
    const app = appFrom(env);
    const pieces = Array.from({ length: TASK.length }, (_, at) => TASK.slice(at, at + 1));
    const answer = post(app, path, slowBody(pieces, BODY_SILENCE_MS - 1, true).stream);
    await vi.advanceTimersByTimeAsync(pieces.length * BODY_SILENCE_MS);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 3, title: "Sent in pieces", completed: false });
  });
});
