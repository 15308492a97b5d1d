// A SQLite list put back from a copy on a real Node, Bun or Deno server: a copy `npm run backup`
// made starts a new history by itself when its server starts, and a copy made any other way does
// once put back with `npm run restore` (or once it is run on the file put back); either way no ETag
// or cursor kept from the list as it went on after the copy means anything, and the new history
// survives a restart.
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { describeAlongside } from "../support/describe-alongside.ts";
import { runNpmScript } from "../support/npm-script.ts";
import { addAlice, eventsFrom, expectNothingKeptHolds } from "../support/restore-scenario.ts";
import { type RunningServer, restartServer, startServer } from "../support/server.ts";

/** How the copy is made and put back: by the service's scripts, or by hand. */
interface Way {
  readonly title: string;
  readonly copy: (path: string, copy: string) => Promise<void>;
  readonly putBack: (copy: string, path: string) => Promise<void>;
}

/** Runs an npm script, which must succeed without a word on standard error. */
async function succeeds(name: string, args: readonly string[]): Promise<string> {
  const run = await runNpmScript(name, args);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return run.stdout;
}

/** Copies a stopped server's list by hand: the file and its write-ahead log, which holds its last changes. */
function copyByHand(from: string, to: string): void {
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
  else rmSync(`${to}-wal`, { force: true });
}

const RESTORED = "restored: the list starts a new history";

const WAYS: readonly Way[] = [
  {
    title: "a copy npm run backup made, put back by hand, starts a new history by itself",
    copy: async (path, copy) => {
      await succeeds("backup", [path, copy]);
    },
    putBack: async (copy, path) => copyByHand(copy, path),
  },
  {
    title: "a copy made by hand, put back with npm run restore, starts a new history",
    copy: async (path, copy) => copyByHand(path, copy),
    putBack: async (copy, path) => {
      expect(await succeeds("restore", [copy, path])).toContain(`${JSON.stringify(path)} ${RESTORED}`);
    },
  },
  {
    title: "a copy made and put back by hand starts a new history once npm run restore is run on it",
    copy: async (path, copy) => copyByHand(path, copy),
    putBack: async (copy, path) => {
      copyByHand(copy, path);
      expect(await succeeds("restore", [path])).toContain(`${JSON.stringify(path)} ${RESTORED}`);
    },
  },
];

/** Registers the tests on `runtime` (each way on Node; the way that needs no step elsewhere), each file in a directory of its own under `dir`. */
export function describeRestoredCopy(runtime: "node" | "bun" | "deno", dir: string): void {
  const ways = runtime === "node" ? WAYS : WAYS.slice(0, 1);
  for (const [index, way] of ways.entries()) {
    describeAlongside(`${runtime} server on a SQLite list put back from a copy: ${way.title}`, () => {
      test("an ETag or cursor kept from after the copy meets 200, 412 and a reset, not the task that took its id, and the new history survives a restart", async () => {
        const data = join(dir, `restored-${index}`);
        mkdirSync(data);
        const path = join(data, "tasks.db");
        const copy = join(data, "copy.db");
        const env = { TASK_STORE: "sqlite", SQLITE_PATH: path };
        let server: RunningServer | undefined;
        try {
          // The list made, then copied with its server stopped.
          server = await startServer(runtime, env);
          await server.stop();
          await way.copy(path, copy);

          server = await startServer(runtime, env);
          const kept = await addAlice(server.baseUrl);
          if (runtime === "node" && index === 1) {
            // The scripts refuse a file its server holds.
            const refused = await runNpmScript("restore", [copy, path]);
            expect([refused.code, refused.stderr.trim()]).toEqual([
              1,
              `A running server holds ${JSON.stringify(path)}: stop it, then run this again`,
            ]);
          }
          await server.stop();
          server = undefined;
          await way.putBack(copy, path);

          server = await startServer(runtime, env);
          const after = await expectNothingKeptHolds(server.baseUrl, kept);
          if (index === 0)
            expect(server.output()).toContain("is a copy npm run backup made: the list starts a new history");

          // The new history is the list's from now on: kept across a restart, not started again.
          server = await restartServer(server);
          const same = await fetch(`${server.baseUrl}/tasks/${kept.alice.id}`, {
            headers: { "If-None-Match": after.etag },
          });
          expect(same.status).toBe(304);
          // A subscriber that followed the restored list resumes without a reset.
          const resumed = eventsFrom(server.baseUrl, after.cursor, 1);
          const next = await fetch(`${server.baseUrl}/tasks`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ title: "After the restore", completed: true }),
          });
          expect(next.status).toBe(200);
          const [event] = await resumed;
          expect(event).toMatchObject({ event: "task", data: await next.text() });
        } finally {
          await server?.stop();
        }
      });
    });
  }
}
