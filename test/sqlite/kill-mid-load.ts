// A durable server killed with SIGKILL in the middle of keyed POSTs, and started again on the same
// state: the clients' retries add each task once, and what was answered before the kill stays.
import { expect, test } from "vitest";
import { describeAlongside } from "../support/describe-alongside.ts";
import { expectEachOnce, type KeyedResponse, runKeyedClients, sendIntended } from "../support/keyed-clients.ts";
import { type Runtime, restartServer, type StartOptions, startServer } from "../support/server.ts";
import { createTask, type ListSnapshot, readList } from "./durable-server.ts";

const CLIENTS = 6;
const TASKS = 120;
/** 200s the clients get before the server is killed. */
const KILL_AFTER = 40;

/**
 * Registers the kill test for a server of `runtime` started with `env` and `start`, whose store
 * must keep its list across a restart (a SQLite file, the Durable Object, PostgreSQL) and hold
 * nothing yet but the initial tasks. wrangler dev runs through its command line, whose whole
 * process group (workerd with it) the kill takes.
 */
export function describeKillMidLoad(
  runtime: Runtime,
  title: string,
  env: () => Readonly<Record<string, string>>,
  start: StartOptions = {},
): void {
  describeAlongside(`${runtime} server, ${title}, killed mid-load`, () => {
    test("killed with SIGKILL amid keyed POSTs and restarted on its state, holds each task its retrying clients sent exactly once, and every task answered before the kill under its id, replayed when sent again", async () => {
      let server = await startServer(runtime, env(), start);
      try {
        const prefix = `Killed ${runtime}`;
        const initial = (await readList(server.baseUrl)).tasks.length;
        // Attempts wait here while the server is down: its port may go to another test's server.
        let target = Promise.resolve(server.baseUrl);
        let killing = false;
        const beforeKill: KeyedResponse[] = [];
        const reached = Promise.withResolvers<"reached">();
        const load = runKeyedClients({
          clients: CLIENTS,
          prefix,
          more: (n) => n < TASKS,
          target: () => target,
          onResponse: (answer) => {
            if (killing) return;
            beforeKill.push(answer);
            if (beforeKill.length === KILL_AFTER) reached.resolve("reached");
          },
        });
        const ended = load.then(
          ({ problems }) => `the load ended before ${KILL_AFTER} answers: ${problems.join("; ")}`,
        );
        const cue = await Promise.race([reached.promise, ended]);
        if (cue !== "reached") throw new Error(cue);

        killing = true;
        const back = Promise.withResolvers<string>();
        target = back.promise;
        await server.kill();
        server = await restartServer(server);
        back.resolve(server.baseUrl);
        const run = await load;
        console.log(
          `${runtime}: ${beforeKill.length} answered before the kill; retried ${JSON.stringify(run.retried)}; ${run.answers.filter((a) => a.replayed).length} replayed`,
        );

        expect(run.problems).toEqual([]);
        expect(run.answers).toHaveLength(TASKS);
        expect(run.retried.lost, "POSTs whose connection the kill cut").toBeGreaterThan(0);
        const list = await wholeList(server.baseUrl);
        expect(list.tasks).toHaveLength(initial + TASKS);
        expectEachOnce(list.tasks, run, prefix);
        for (const { intended, task } of beforeKill) {
          const again = await sendIntended(server.baseUrl, intended);
          expect([again.status, again.replayed, again.task], `"${intended.title}" sent again`).toEqual([
            200,
            true,
            task,
          ]);
        }
        expect(await readList(server.baseUrl)).toEqual(list);
        const next = await createTask(server.baseUrl, { title: "After the kill", completed: false });
        expect(next.id).toBe(initial + TASKS + 1);
      } finally {
        await server.stop();
      }
    });
  });
}

/**
 * Reads the list and checks that it is whole and consistent: its JSON parses, two reads and a read
 * from `?after=0` give the same bytes under the same ETag, and that ETag returns 304.
 */
async function wholeList(baseUrl: string): Promise<ListSnapshot> {
  const list = await readList(baseUrl);
  expect(list.etag).not.toBeNull();
  expect(await readList(baseUrl)).toEqual(list);
  const after = await fetch(`${baseUrl}/tasks?after=0`);
  expect([after.status, after.headers.get("ETag"), await after.text()]).toEqual([200, list.etag, list.text]);
  const unchanged = await fetch(`${baseUrl}/tasks`, { headers: { "If-None-Match": list.etag ?? "" } });
  expect([unchanged.status, await unchanged.text()]).toEqual([304, ""]);
  return list;
}
