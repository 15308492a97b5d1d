// `npm run bench:memory`: the memory a list of 24 MiB (the most MAX_LIST_BYTES allows on Workers)
// holds while it is in memory, measured in Node with the service's own code and a full garbage
// collection before each reading: as the memory store holds it, built by its POSTs, and as a store
// that loads it from SQLite holds it (the SQLite file, and the Durable Object, which loads it so on
// waking). Writes bench/results/list-memory.md.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createApp, type TaskApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { HeldLists } from "../../src/engine/held-lists.ts";
import { SqliteFileLists } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";

const MIB = 1024 * 1024;
/** About 24 MiB of JSON: tasks of about 192 bytes, as the wake bench's. */
const TASKS = 130_000;
const TITLE = "A task of the bench, with a title of about the length people give theirs, ".repeat(2);
const config = parseAppConfig({ LOG_LEVEL: "off", MAX_TASKS: String(TASKS + 10), MAX_LIST_BYTES: String(24 * MIB) });

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("Run this bench with node --expose-gc, as npm run bench:memory does");

/** What the process holds once collected: the JavaScript heap and the bytes of its ArrayBuffers, in MiB. */
function held(): { heap: number; buffers: number } {
  gc?.();
  gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed / MIB, buffers: arrayBuffers / MIB };
}

/** Adds the list's tasks through the app and returns the bytes of its JSON. */
async function fill(app: TaskApp): Promise<number> {
  const body = JSON.stringify({ title: TITLE, completed: false });
  const init = { method: "POST", body, headers: { "Content-Type": "application/json" } };
  for (let i = 2; i < TASKS; i++) {
    const res = await app.request("/tasks", init);
    if (res.status !== 200) throw new Error(`POST /tasks answered ${res.status}`);
  }
  return (await (await app.request("/tasks")).arrayBuffer()).byteLength;
}

/** Reads the whole list once, so that it is in memory, and lets the response go. */
async function readOnce(app: TaskApp): Promise<void> {
  const res = await app.request("/tasks");
  if (res.status !== 200) throw new Error(`GET /tasks answered ${res.status}`);
  await res.arrayBuffer();
}

const empty = createApp({ lists: new HeldLists(), config });
await readOnce(empty);
const before = held();
const bytes = await fill(empty);
const built = held();

const dir = mkdtempSync(join(tmpdir(), "list-memory-"));
const path = join(dir, "list.db");
const first = openNodeSqlite(path);
await fill(createApp({ lists: new SqliteFileLists(first), config }));
first.close();
const reopenedBefore = held();
const again = openNodeSqlite(path);
// Kept to the end of the module, so that its list is still held when it is measured.
const reopened = createApp({ lists: new SqliteFileLists(again), config });
await readOnce(reopened);
const loaded = held();
again.close();
rmSync(dir, { recursive: true, force: true });

const row = (name: string, from: { heap: number; buffers: number }, to: { heap: number; buffers: number }) => {
  const heap = to.heap - from.heap;
  const buffers = to.buffers - from.buffers;
  return `| ${name} | ${heap.toFixed(1)} | ${buffers.toFixed(1)} | ${(heap + buffers).toFixed(1)} |`;
};
const report = `# Memory of a list of 24 MiB

\`npm run bench:memory\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}: a list of ${TASKS.toLocaleString("en")} tasks
(${(bytes / MIB).toFixed(1)} MiB of JSON) added through \`POST /tasks\`, then what the process holds once a full
garbage collection ran, beyond what it held before the list, in MiB: the JavaScript heap, and the bytes of
the ArrayBuffers (the list's encoded chunks and their indexes, its journal of recent changes).

| the list | heap | ArrayBuffers | in all |
| --- | ---: | ---: | ---: |
${row("the memory store's, built by its POSTs", before, built)}
${row("loaded from its SQLite file by a store opened again", reopenedBefore, loaded)}

The Durable Object loads its list from its SQLite the second way when it wakes, and a Worker's copy of a
list (the Durable Object's or PostgreSQL's) is built from the changes the first way, so these are what each
of those holds for a list of 24 MiB, beside what the runtime itself takes.
`;
writeFileSync(fileURLToPath(new URL("../results/list-memory.md", import.meta.url)), report);
console.log(report);
