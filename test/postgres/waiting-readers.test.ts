// A process's readers waiting for a list to change, when what tells them races with their own
// reads: each wakes once the copy holds a change after theirs, whichever read brought it.
import postgres from "postgres";
import { afterAll, expect, inject, test } from "vitest";
import { PostgresLists } from "../../src/store/postgres/postgres-lists.ts";
import { processStore } from "./process-store.ts";

const { url } = inject("postgres");
const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
/** Far longer than a wake takes on any machine: a reader still waiting then was never woken. */
const NEVER_MS = 10_000;
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

/** What comes first: `waited`, or {@link NEVER_MS} of nothing. */
async function wokeOrNot(waited: Promise<void>): Promise<"woke" | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const never = new Promise<"still waiting">((done) => {
    timer = setTimeout(() => done("still waiting"), NEVER_MS);
  });
  try {
    return await Promise.race([waited.then(() => "woke" as const), never]);
  } finally {
    clearTimeout(timer);
  }
}

test("a reader that waits while another reader's read brings a change already told of wakes, though no other change comes", async () => {
  const schema = "waiting_readers";
  const writer = processStore(url, schema);
  pools.push(writer.sql);
  await writer.lists.open();
  // The reading process hears of changes only when the test tells it, so the telling can fall
  // exactly between two reads, as a notification can on a busy server.
  const sql = postgres(url, { max: 2, fetch_types: false, onnotice: () => {} });
  pools.push(sql);
  let tell: (payload: string) => void = () => {};
  const lists = new PostgresLists((work) => work(sql), schema, {
    listen: async (_channel, onNotify) => {
      tell = onNotify;
    },
  });
  await lists.open();
  const reader = lists.list("default");
  const start = (await reader.read()).version;

  await writer.store.append({ title: "Told before anyone waits", completed: false }, LIMITS);
  const { change } = (await writer.store.read()).version;
  // Told while every reader is busy elsewhere (writing to its subscriber): none waits to read it.
  tell(`default ${change}`);
  // One reader reads the change; another, whose read ended before it, waits meanwhile.
  const reading = reader.read();
  const waiting = reader.nextChange(start.change, new AbortController().signal);
  expect((await reading).version.change).toBe(change);
  expect(await wokeOrNot(waiting)).toBe("woke");
});
