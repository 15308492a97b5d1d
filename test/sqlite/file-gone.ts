// A SQLite file's directory deleted under a running Node, Bun or Deno server: writes return 503
// rather than acknowledging what a restart would not find, the log says so once, and after a
// restart a retry with the same Idempotency-Key adds its task once.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { describeAlongside } from "../support/describe-alongside.ts";
import { eventually } from "../support/eventually.ts";
import { restartServer, startServer } from "../support/server.ts";
import { postTask, readList } from "./durable-server.ts";

/** Registers the test on `runtime`, its file in a directory of its own under `dir`. */
export function describeFileGone(runtime: "node" | "bun" | "deno", dir: string): void {
  describeAlongside(`${runtime} server whose SQLite file's directory is deleted`, () => {
    test("returns 503 with Retry-After to keyed POSTs, logs it once, and a retry after a restart adds the task once", async () => {
      const data = join(dir, "deleted");
      mkdirSync(data);
      const path = join(data, "tasks.db");
      let server = await startServer(runtime, { TASK_STORE: "sqlite", SQLITE_PATH: path });
      try {
        const task = { title: "Sent while the file was gone", completed: false };
        rmSync(data, { recursive: true });
        for (let attempt = 0; attempt < 3; attempt++) {
          const refused = await postTask(server.baseUrl, task, undefined, "gone-key");
          expect(refused.status).toBe(503);
          expect(JSON.parse(refused.text)).toEqual({
            message: "Task list store cannot be reached: try again in a moment",
          });
        }
        // What the store said of itself: not a request's line, nor the start's about where the lists live.
        const said = (output: string) =>
          output
            .split("\n")
            .filter(
              (line) => line.startsWith("{") && !line.includes('"requestId"') && !line.includes("Lists are kept"),
            );
        const lines = await eventually(() => {
          const found = said(server.output());
          return found.length > 0 ? found : undefined;
        });
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0] ?? "")).toMatchObject({
          level: "error",
          message: expect.stringContaining(`SQLITE_PATH ${JSON.stringify(path)} no longer holds the database file`),
        });

        mkdirSync(data);
        server = await restartServer(server);
        const retried = await postTask(server.baseUrl, task, undefined, "gone-key");
        expect(retried.status).toBe(200);
        expect(retried.replayed).toBeNull();
        expect((await postTask(server.baseUrl, task, undefined, "gone-key")).replayed).toBe("true");
        const titles = (await readList(server.baseUrl)).tasks.map((t) => t.title);
        expect(titles.filter((title) => title === task.title)).toHaveLength(1);
      } finally {
        await server.stop();
      }
    });
  });
}
