import fc from "fast-check";
import postgres from "postgres";
import { describe, inject, test } from "vitest";
import { PostgresStore } from "../../src/store/postgres/postgres-store.ts";
import { histories, run } from "../support/change-history.ts";

const { url } = inject("postgres");

/** A store as one server process makes it on the list in `schema`, and the pool it ends with. */
async function storeOn(schema: string): Promise<{ store: PostgresStore; sql: postgres.Sql }> {
  const sql = postgres(url, { max: 2, fetch_types: false, onnotice: () => {}, backoff: () => 0.05 });
  const store = new PostgresStore((work) => work(sql), schema, {
    listen: (channel, onNotify, onListen) => sql.listen(channel, onNotify, onListen),
  });
  await store.open();
  return { store, sql };
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
