// A durable server killed with SIGKILL while lists are being created and deleted, and started
// again on the same state: `/lists` and each list's own answers agree, and every creation and
// deletion answered before the kill holds.
import { expect, test } from "vitest";
import { describeAlongside } from "../support/describe-alongside.ts";
import { type Runtime, restartServer, type StartOptions, startServer } from "../support/server.ts";

const CLIENTS = 4;
/** Answers the clients get before the server is killed. */
const KILL_AFTER = 60;

/**
 * Registers the test for a server of `runtime` started with `env` and `start`, whose store keeps
 * its lists across a restart. Each client creates lists one after another and deletes every other
 * one it made; the server is killed amid them.
 */
export function describeListsKilled(
  runtime: Runtime,
  title: string,
  env: () => Readonly<Record<string, string>>,
  start: StartOptions = {},
): void {
  describeAlongside(`${runtime} server, ${title}, killed amid creations and deletions of lists`, () => {
    test("killed with SIGKILL while lists are created and deleted, and restarted, its /lists and each list's own answers agree, and every answer given before the kill holds", async () => {
      let server = await startServer(runtime, env(), start);
      try {
        /** What the server answered for each name: the last creation or deletion it acknowledged. */
        const acknowledged = new Map<string, "created" | "deleted">();
        const touched = new Set<string>();
        let answers = 0;
        let killed = false;
        const reached = Promise.withResolvers<void>();
        const client = async (n: number) => {
          for (let i = 0; !killed; i++) {
            const name = `c${n}-${i}`;
            touched.add(name);
            const made = await send(server.baseUrl, "PUT", `/lists/${name}`, { title: `List ${name}` });
            if (made === undefined || killed) return;
            expect(made).toBe(201);
            acknowledged.set(name, "created");
            if (++answers === KILL_AFTER) reached.resolve();
            if (i % 2 === 1) continue;
            const gone = await send(server.baseUrl, "DELETE", `/lists/${name}`);
            // A deletion whose answer the kill took may or may not have been made: nothing is known of it.
            if (gone === undefined || killed) {
              acknowledged.delete(name);
              return;
            }
            expect(gone).toBe(204);
            acknowledged.set(name, "deleted");
            if (++answers === KILL_AFTER) reached.resolve();
          }
        };
        const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
        await reached.promise;
        killed = true;
        await server.kill();
        await Promise.all(clients);
        server = await restartServer(server);

        const listed = new Map(
          ((await (await fetch(`${server.baseUrl}/lists`)).json()) as { name: string; title: string }[]).map((list) => [
            list.name,
            list.title,
          ]),
        );
        for (const name of touched) {
          const own = await fetch(`${server.baseUrl}/lists/${name}`);
          const tasks = await fetch(`${server.baseUrl}/lists/${name}/tasks`);
          await own.body?.cancel();
          await tasks.body?.cancel();
          const title = listed.get(name);
          if (title !== undefined) {
            expect([name, own.status, tasks.status]).toEqual([name, 200, 200]);
          } else {
            expect([404, 410], `${name}: ${own.status}`).toContain(own.status);
            expect([name, tasks.status]).toEqual([name, own.status]);
          }
          const answer = acknowledged.get(name);
          if (answer === "created") expect([name, title]).toEqual([name, `List ${name}`]);
          if (answer === "deleted") expect([name, own.status]).toEqual([name, 410]);
        }
      } finally {
        await server.stop();
      }
    });
  });
}

/** Sends a request and returns its status, or undefined when the connection failed (the kill). */
async function send(baseUrl: string, method: string, path: string, body?: unknown): Promise<number | undefined> {
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }),
    });
    await res.body?.cancel();
    return res.status;
  } catch {
    return undefined;
  }
}
