// Subscribers under strain on a real server: one that stops reading is cut off and comes back with
// its cursor missing nothing; thousands that come at once all get each task, and leave nothing
// behind when they go.
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import type { RunningServer, Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { TIME_SCALE, timeScaled } from "../support/time-scale.ts";
import { describeCatchUp } from "./catch-up.ts";
import { listText } from "./http.ts";
import { RUNS_LOAD } from "./load-seconds.ts";
import { BIG_TITLE, MAX_BIG_TASKS, placeFree, post, RawSubscriber, type Task } from "./raw-subscriber.ts";
import { describeStalledEdits } from "./stalled-edits.ts";

/** Subscribers that come at once; in `npm test` a quarter as many. */
const CROWD = RUNS_LOAD ? 2_000 : 500;

/** The ids of the tasks after `cursor` in the list now. */
async function idsAfter(baseUrl: string, cursor: number): Promise<number[]> {
  const res = await fetch(`${baseUrl}/tasks?after=${cursor}`);
  return ((await res.json()) as Task[]).map((task) => task.id);
}

/**
 * Registers the live checks under strain for `runtime` on servers of their own: a subscriber that
 * stalls, a server that stops with subscribers, and a subscriber that stays quiet for as long as the
 * file runs.
 */
export function describeLive(runtime: Runtime): void {
  const quiet = openQuietSubscriber(runtime);
  describeStalled(runtime);
  describeStalledEdits(runtime);
  describeCatchUp(runtime);
  // A Worker is not a process that anyone stops.
  if (runtime !== "workerd") describeStopping(runtime);
  test(`a quiet event stream gets a keep-alive comment every 15 s (${15 * TIME_SCALE} s at TIME_SCALE=${TIME_SCALE}), which keeps it open past the runtime's idle timeouts`, async () => {
    const subscriber = await quiet();
    // Sixteen comments, 12 s: past the idle timeouts the runtimes have at TIME_SCALE (Bun's is 8 s),
    // waited for ten times as long as they take.
    const deadline = Date.now() + 10 * 16 * 15_000 * TIME_SCALE;
    while (keepAlives(subscriber) < 16 && !subscriber.isClosed) {
      expect(Date.now(), "the comments must come every 15 s times TIME_SCALE").toBeLessThan(deadline);
      await sleep(100);
    }
    expect(subscriber.isClosed, "the quiet stream was closed between its keep-alive comments").toBe(false);
    expect(subscriber.ids()).toEqual([]);
    subscriber.socket.destroy();
  });
}

/** The keep-alive comments a subscriber has received. */
function keepAlives(subscriber: RawSubscriber): number {
  return subscriber.received.split(": keep-alive\n\n").length - 1;
}

/**
 * Opens, before the file's first test, an event stream that receives no task, on a server at
 * TIME_SCALE: the test that reads it comes last, so its silence passes while the other tests run.
 */
function openQuietSubscriber(runtime: Runtime): () => Promise<RawSubscriber> {
  const server = useServer(runtime, { LOG_LEVEL: "warn", ...timeScaled() });
  let subscriber: RawSubscriber | undefined;
  beforeAll(async () => {
    // A fresh list is at change 2, and this server's list never changes: no event is due.
    subscriber = new RawSubscriber(server().baseUrl, "/tasks/events?after=2");
    await subscriber.opened();
  });
  return async () => {
    if (subscriber === undefined) throw new Error("The quiet subscriber did not open");
    return subscriber;
  };
}

/** A server stopped by SIGTERM while subscribers follow the list. */
function describeStopping(runtime: Runtime): void {
  describe(`${runtime} server stopped with subscribers`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn" });

    test("SIGTERM ends every event stream as a finished stream and closes every WebSocket with 1001, and the server exits with 0, with no runtime warning about request.signal", async () => {
      const { baseUrl, terminate, output } = server();
      // One that left before the stop: Deno warned of request.signal's legacy abort as it ended, as at
      // the end of every stream, until deno.json opted into the new behaviour.
      const left = new RawSubscriber(baseUrl, "/tasks/events");
      await left.opened();
      left.socket.destroy();
      const stream = new RawSubscriber(baseUrl, "/tasks/events");
      await stream.opened();
      const socket = new WebSocket(`${baseUrl.replace("http", "ws")}/tasks/events`);
      const closed = new Promise<number>((done) => socket.once("close", (code) => done(code)));
      await new Promise((done, fail) => {
        socket.once("open", done);
        socket.once("error", fail);
      });
      expect(terminate).toBeDefined();
      expect(await terminate?.()).toBe(0);
      expect(await closed).toBe(1001);
      await stream.closed;
      expect(stream.ids()).toEqual([1, 2]);
      // The last chunk of a chunked body: the stream was ended, not cut.
      expect(stream.received.endsWith("\r\n0\r\n\r\n")).toBe(true);
      // Its output is whole once it has exited.
      expect(output()).not.toContain("request.signal");
    });
  });
}

/** A subscriber that stops reading, on a server whose one subscriber slot shows when it is cut off. */
function describeStalled(runtime: Runtime): void {
  // A server for each: a subscriber that has gone may hold the one slot for seconds (see crowdSlots).
  describe(`${runtime} server with MAX_SUBSCRIBERS=1 and an event stream`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn", MAX_SUBSCRIBERS: "1" });

    test("an event stream that stops reading is cut off once a MiB of new tasks waits for it, and its cursor brings back every task it missed", async () => {
      const { baseUrl } = server();
      const start = Number((JSON.parse(await listText(server())) as Task[]).at(-1)?.id ?? 0);
      const stalled = new RawSubscriber(baseUrl, `/tasks/events?after=${start}`);
      await stalled.opened();
      stalled.socket.pause();
      expect(await placeFree(baseUrl)).toBe(false);
      let posted = 0;
      while (!(await placeFree(baseUrl))) {
        expect(posted, "the stalled subscriber must be cut off before 14 MiB of tasks wait for it").toBeLessThan(
          MAX_BIG_TASKS,
        );
        await post(baseUrl, BIG_TITLE);
        posted += 1;
      }
      // What reached the stalled subscriber before it was cut off, then the rest from its cursor.
      stalled.socket.resume();
      await stalled.closed;
      const got = stalled.ids();
      const cursor = got.at(-1) ?? start;
      expect(got).toEqual((await idsAfter(baseUrl, start)).filter((id) => id <= cursor));
      const resumed = await fetch(`${baseUrl}/tasks/events`, { headers: { "Last-Event-ID": String(cursor) } });
      expect(resumed.status).toBe(200);
      const reader = resumed.body?.getReader();
      const decoder = new TextDecoder();
      const rest = await idsAfter(baseUrl, cursor);
      // Events come in change order, each ending in a blank line: once the last id has come, so has
      // the rest. Only whole events are read for ids, each once (they carry 512 KiB titles).
      const resumedIds: number[] = [];
      let pending = "";
      while (resumedIds.at(-1) !== rest.at(-1)) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) break;
        pending += decoder.decode(chunk.value, { stream: true });
        const end = pending.lastIndexOf("\n\n");
        if (end < 0) continue;
        for (const match of pending.slice(0, end).matchAll(/^id: (\d+)$/gm)) resumedIds.push(Number(match[1]));
        pending = pending.slice(end + 2);
      }
      await reader?.cancel();
      expect([...got, ...resumedIds]).toEqual(await idsAfter(baseUrl, start));
    });
  });

  // workerd's WebSocket has no bufferedAmount: a Worker cannot tell a socket that stops reading
  // from one that reads (docs/live-changes.md, "Following the list on Workers").
  describe.skipIf(runtime === "workerd")(`${runtime} server with MAX_SUBSCRIBERS=1 and a WebSocket`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn", MAX_SUBSCRIBERS: "1" });

    test("a WebSocket that stops reading is closed with 1013 once a MiB of new tasks waits for it, and its cursor brings back the rest", async () => {
      const { baseUrl } = server();
      const start = Number((JSON.parse(await listText(server())) as Task[]).at(-1)?.id ?? 0);
      const socket = new WebSocket(`${baseUrl.replace("http", "ws")}/tasks/events?after=${start}`);
      const messages: string[] = [];
      socket.on("message", (data) => messages.push(String(data)));
      const closed = new Promise<number>((done) => socket.once("close", (code) => done(code)));
      await new Promise((done, fail) => {
        socket.once("open", done);
        socket.once("error", fail);
      });
      socket.pause();
      let posted = 0;
      while (!(await placeFree(baseUrl))) {
        expect(posted, "the stalled socket must be cut off before 14 MiB of tasks wait for it").toBeLessThan(
          MAX_BIG_TASKS,
        );
        await post(baseUrl, BIG_TITLE);
        posted += 1;
      }
      socket.resume();
      expect(await closed).toBe(1013);
      const got = messages.map((text) => (JSON.parse(text) as Task).id);
      expect(got).toEqual((await idsAfter(baseUrl, start)).filter((id) => id <= (got.at(-1) ?? start)));
    });
  });
}

/**
 * The settings a server needs for {@link describeCrowd}: slots for exactly one crowd, so that the
 * second crowd comes only if the first gave every slot back. workerd sees an event stream's client
 * go only when it next writes to it, the keep-alive comment up to 15 s later (request.signal does
 * not abort when the connection closes), so there no slot is counted.
 */
export function crowdSlots(runtime: Runtime): Record<string, string> {
  return runtime === "workerd" ? {} : { MAX_SUBSCRIBERS: String(CROWD) };
}

/**
 * Subscribers that come at once to `server`, started with {@link crowdSlots}, each getting the next
 * task, and give their slots back when they go.
 */
export function describeCrowd(runtime: Runtime, server: () => RunningServer): void {
  describe(`${runtime} server taking a crowd of subscribers`, () => {
    /** A crowd comes at once, each gets the next task, and all leave. */
    const crowdComesAndGoes = async (): Promise<void> => {
      const { baseUrl } = server();
      const last = (await post(baseUrl, "Before the crowd")).id;
      const crowd = Array.from({ length: CROWD }, () => new RawSubscriber(baseUrl, `/tasks/events?after=${last}`));
      try {
        await Promise.all(crowd.map((subscriber) => subscriber.opened()));
        const task = await post(baseUrl, "Seen by the crowd");
        for (const subscriber of crowd) {
          while (subscriber.ids().length === 0) await sleep(10);
          expect(subscriber.ids()).toEqual([task.id]);
        }
      } finally {
        for (const subscriber of crowd) subscriber.socket.destroy();
      }
      await Promise.all(crowd.map((subscriber) => subscriber.closed));
    };

    test(`${CROWD} subscribers that come at once each get the next task, and as many come again once they have left${runtime === "workerd" ? " (slots not counted)" : ""}`, async () => {
      const before = server().memoryKib();
      await crowdComesAndGoes();
      // Every slot is taken by the first crowd: the second one comes only if each was given back.
      // What the app keeps of a subscriber once it has gone is counted after a collection, in
      // test/unit/live.test.ts; a runtime's resident memory only shows how its heap grew.
      await sleep(500);
      await crowdComesAndGoes();
      console.log(`${runtime}: resident memory ${before} KiB before two crowds, ${server().memoryKib()} KiB after`);
    });
  });
}
