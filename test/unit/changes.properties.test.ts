import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, test } from "vitest";
import { MemoryStore } from "../../src/engine/memory.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { histories, run } from "../support/change-history.ts";
import { sqliteDefaultList } from "./helpers.ts";

describe("a subscriber that applies events by id holds exactly the list, however it changed and wherever it resumes", () => {
  test("on the memory store", async () => {
    await fc.assert(
      fc.asyncProperty(histories(60), (steps) => run(new MemoryStore(), steps)),
      { numRuns: 150 },
    );
  });

  test("on a SQLite file store, reopened between writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "task-list-changes-"));
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(histories(40), async (steps) => {
          const path = join(dir, `tasks-${runs++}.db`);
          const first = openNodeSqlite(path);
          try {
            await run(sqliteDefaultList(first), steps);
          } finally {
            first.close();
          }
          const again = openNodeSqlite(path);
          try {
            const reopened = sqliteDefaultList(again);
            await run(
              reopened,
              steps.filter((step) => step.kind !== "create"),
            );
          } finally {
            again.close();
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
