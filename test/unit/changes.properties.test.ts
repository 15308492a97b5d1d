import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { ListVersion } from "../../src/list/encoded-list.ts";
import { MemoryStore } from "../../src/store/memory.ts";
import { SqliteFileStore } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import type { TaskStore } from "../../src/store/store.ts";

const decoder = new TextDecoder();
const LIMITS = { maxTasks: 40, maxBytes: 4096, maxKeys: 100 };

/** One step of a random history: a write, or a subscriber coming back from a cursor it once held. */
type Step =
  | { readonly kind: "create"; readonly title: string; readonly completed: boolean }
  | { readonly kind: "edit"; readonly pick: number; readonly title?: string; readonly completed?: boolean }
  | { readonly kind: "delete"; readonly pick: number }
  | { readonly kind: "resume"; readonly pick: number };

const titleArb = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", "a", "\ud800", "é🚀", "x".repeat(300)));
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), title: titleArb, completed: fc.boolean() }),
  fc.record(
    { kind: fc.constant("edit" as const), pick: fc.nat(), title: titleArb, completed: fc.boolean() },
    { requiredKeys: ["kind", "pick"] },
  ),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("resume" as const), pick: fc.nat() }),
);

/** What a subscriber holds: the tasks by id, applied from events, and the cursor it would resume from. */
interface Held {
  readonly tasks: Map<number, string>;
  readonly cursor: number;
}

/** Applies the events after `held.cursor` as the contract tells a client to, and returns what it then holds. */
function caughtUp(list: ListVersion, held: Held): Held {
  const tasks = new Map(held.tasks);
  let cursor = held.cursor;
  const { reset, events } = list.eventsAfter(cursor);
  if (reset) tasks.clear();
  for (const event of events) {
    const json = decoder.decode(event.json);
    if (event.event === "delete") tasks.delete(event.id);
    else tasks.set(event.id, json);
    cursor = event.change;
  }
  return { tasks, cursor };
}

function wholeList(list: ListVersion): string {
  return list
    .body()
    .parts.map((part) => decoder.decode(part))
    .join("");
}

function heldList(held: Held): string {
  return `[${[...held.tasks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, json]) => json)
    .join(",")}]`;
}

async function run(store: TaskStore, steps: readonly Step[]): Promise<void> {
  // Every state a subscriber was once in: it may come back from any of them, or from a cursor past the end.
  const seen: Held[] = [{ tasks: new Map(), cursor: 0 }];
  for (const step of steps) {
    const list = await store.read();
    const ids = [...list.tasksAfter(0)].map((task) => task.id);
    // Ids never given and ids deleted are picked too.
    const id = (step.kind === "create" ? 0 : step.pick % (list.lastId + 3)) || 1;
    if (step.kind === "create") await store.append({ title: step.title, completed: step.completed }, LIMITS);
    else if (step.kind === "edit") {
      const { title, completed } = step;
      const result = await store.update(
        id,
        { ...(title === undefined ? {} : { title }), ...(completed === undefined ? {} : { completed }) },
        LIMITS,
      );
      expect(result.outcome).toEqual(
        ids.includes(id) ? expect.stringMatching(/updated|unchanged|full/) : expect.stringMatching(/gone|not-found/),
      );
    } else if (step.kind === "delete") {
      expect((await store.remove(id)).outcome).toEqual(
        ids.includes(id) ? "deleted" : expect.stringMatching(/gone|not-found/),
      );
    } else {
      const from = step.pick % (seen.length + 1);
      const held = seen[from] ?? { tasks: new Map([[999, "{}"]]), cursor: list.change + 1 + step.pick };
      const now = caughtUp(list, held);
      expect(heldList(now)).toBe(wholeList(list));
      seen.push(now);
    }
  }
  const list = await store.read();
  for (const held of seen) expect(heldList(caughtUp(list, held))).toBe(wholeList(list));
}

describe("a subscriber that applies events by id holds exactly the list, however it changed and wherever it resumes", () => {
  test("on the memory store", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 60 }), (steps) => run(new MemoryStore(), steps)),
      { numRuns: 150 },
    );
  });

  test("on a SQLite file store, reopened between writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "task-list-changes-"));
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { maxLength: 40 }), async (steps) => {
          const path = join(dir, `tasks-${runs++}.db`);
          const first = openNodeSqlite(path);
          try {
            await run(new SqliteFileStore(first), steps);
          } finally {
            first.close();
          }
          const again = openNodeSqlite(path);
          try {
            const reopened = new SqliteFileStore(again);
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
