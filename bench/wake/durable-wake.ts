// `npm run bench:wake`: how long the Durable Object takes to wake holding a list of 16 MiB, on
// `workerd serve` with its state on disk. It fills the list through the API, restarts workerd, and
// times the first read (the object loads its list from SQLite; the isolate then copies it), against
// the same first read with a list of two tasks. Writes bench/results/durable-wake.md.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type RunningServer, restartServer, startServer } from "../../test/support/server.ts";
import { postMany } from "../lib/http.ts";
import { median } from "../lib/median.ts";

const RESTARTS = 5;
/** About 16 MiB of JSON: 87,000 tasks of about 192 bytes each. */
const TASKS = 87_000;
const TITLE = "A task of the bench, with a title of about the length people give theirs, ".repeat(2);

/** Restarts `server` `RESTARTS` times and times each first read of the whole list, in ms. */
async function firstReads(server: RunningServer): Promise<{ server: RunningServer; ms: number[]; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  let running = server;
  for (let i = 0; i < RESTARTS; i++) {
    running = await restartServer(running);
    const began = performance.now();
    const res = await fetch(`${running.baseUrl}/tasks`);
    bytes = (await res.arrayBuffer()).byteLength;
    ms.push(performance.now() - began);
    if (res.status !== 200) throw new Error(`GET /tasks answered ${res.status}`);
  }
  return { server: running, ms, bytes };
}

const env = { LOG_LEVEL: "off", MAX_TASKS: String(TASKS + 10), MAX_LIST_BYTES: String(24 * 1024 * 1024) };
const small = await startServer("workerd", env, { environment: "durable" });
const empty = await firstReads(small);
await empty.server.stop();

const large = await startServer("workerd", env, { environment: "durable" });
await postMany(`${large.baseUrl}/tasks`, JSON.stringify({ title: TITLE, completed: false }), TASKS - 2);
const full = await firstReads(large);
await full.server.stop();

const row = (name: string, reading: { ms: number[]; bytes: number }) =>
  `| ${name} | ${reading.bytes.toLocaleString("en")} | ${median(reading.ms).toFixed(0)} | ${reading.ms.map((ms) => ms.toFixed(0)).join(", ")} |`;
const report = `# The Durable Object waking with its list

\`npm run bench:wake\` on ${new Date().toISOString().slice(0, 10)}: \`workerd serve\` with the object's state on disk,
restarted ${RESTARTS} times; each time, the first \`GET /tasks\` after the restart. That read wakes the object,
which loads the list from its SQLite into memory, then the isolate copies the list from the object in
RPC replies of about 4 MiB, and the response carries it whole.

| list | bytes | first read, median ms | each run, ms |
| --- | --- | --- | --- |
${row("2 tasks", empty)}
${row(`${TASKS.toLocaleString("en")} tasks`, full)}

The difference of the medians bounds what loading a list of 16 MiB into the object's memory costs
on waking, with the copy to the isolate and the response included.
`;
writeFileSync(fileURLToPath(new URL("../results/durable-wake.md", import.meta.url)), report);
console.log(report);
