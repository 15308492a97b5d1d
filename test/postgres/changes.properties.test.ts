import fc from "fast-check";
import type postgres from "postgres";
import { describe, inject, test } from "vitest";
import type { PostgresStore } from "../../src/store/postgres/postgres-store.ts";
import { histories, run } from "../support/change-history.ts";
import { processStore } from "./process-store.ts";

const { url } = inject("postgres");

/** A store as one server process makes it on the list in `schema`, and the pool it ends with. */
async function storeOn(schema: string): Promise<{ store: PostgresStore; sql: postgres.Sql }> {
  const made = processStore(url, schema);
  await made.lists.open();
  return made;
}

describe("a subscriber that applies events by id holds exactly the list, however it changed and wherever it resumes", () => {
  test("on a PostgreSQL list written by one process and read by another", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(histories(40), async (steps) => {
        const schema = `changes_property_${runs++}`;
        const writer = await storeOn(schema);
        const reader = await storeOn(schema);
        try {
          await run(writer.store, steps, reader.store);
        } finally {
          await Promise.all([writer.sql.end(), reader.sql.end()]);
        }
      }),
      // A failure's shrinking, a query or two per step, stops in time to be reported with what it found.
      { numRuns: 10, plugins: [fc.interruptAfterTimeLimit(40_000)] },
    );
  });
});
