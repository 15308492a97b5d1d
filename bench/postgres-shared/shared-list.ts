// One PostgreSQL list written by Node, Bun, Deno and workerd at once: for a fixed time, clients on
// each server create, complete and delete tasks of the same list; writes per second, and what the
// database's functions were called for them. Writes bench/results/partial/postgres-shared.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { INITIAL_TASKS } from "../../src/list/task.ts";
import { asOperator, onPostgres } from "../../test/postgres/servers.ts";
import { startPostgres } from "../../test/support/postgres-server.ts";
import { type RunningServer, type Runtime, startServer } from "../../test/support/server.ts";
import { median } from "../lib/median.ts";

const RUNTIMES: readonly Runtime[] = ["node", "bun", "deno", "workerd"];
const SCHEMA = "shared";
const WARM_UP_MS = 1_000;

const { values: options } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    repeats: { type: "string", default: "3" },
    clients: { type: "string", default: "4" },
  },
});
const SECONDS = Number(options.seconds);
const REPEATS = Number(options.repeats);
/** Clients per server, each with one request in flight. */
const CLIENTS = Number(options.clients);

/** What one trial's clients got, by server, and what PostgreSQL did for it. */
interface Trial {
  /** Writes answered 2xx, by runtime. */
  readonly writes: Record<string, number>;
  /** Answers other than 2xx, by status. */
  readonly refused: Record<string, number>;
  /** Changes the clients made to the list, warm-up included. */
  readonly changes: number;
  /** Calls of each of the schema's functions for them: PostgreSQL counts them once each connection ends. */
  readonly calls: Record<string, number>;
}

/** One client's loop: POST a task, PATCH it completed, DELETE it, until `until`; counts 2xx writes. */
async function client(
  server: RunningServer,
  name: string,
  until: () => boolean,
  counted: () => boolean,
  trial: { writes: Record<string, number>; refused: Record<string, number> },
): Promise<void> {
  const base = `${server.baseUrl}/tasks`;
  const send = async (url: string, method: string, body?: unknown): Promise<Response> => {
    const response = await fetch(url, {
      method,
      ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    if (counted()) {
      if (response.ok) trial.writes[name] = (trial.writes[name] ?? 0) + 1;
      else trial.refused[response.status] = (trial.refused[response.status] ?? 0) + 1;
    }
    return response;
  };
  while (until()) {
    const created = await send(base, "POST", { title: `Shared by ${name}`, completed: false });
    if (!created.ok) {
      await created.body?.cancel();
      await new Promise((done) => setTimeout(done, 50));
      continue;
    }
    const { id } = (await created.json()) as { id: number };
    await (await send(`${base}/${id}`, "PATCH", { completed: true })).body?.cancel();
    await (await send(`${base}/${id}`, "DELETE")).body?.cancel();
  }
}

/** The list's change number and the calls of each function of the schema, as PostgreSQL counts them. */
async function counters(url: string): Promise<{ change: number; calls: Record<string, number> }> {
  return asOperator(url, async (sql) => {
    const [list] = await sql.unsafe(`SELECT change_number FROM "${SCHEMA}".lists WHERE name = 'default'`);
    const functions = await sql.unsafe(
      `SELECT funcname, calls FROM pg_stat_user_functions WHERE schemaname = '${SCHEMA}' ORDER BY funcname`,
    );
    return {
      change: Number(list?.change_number),
      calls: Object.fromEntries(functions.map((row) => [String(row.funcname), Number(row.calls)])),
    };
  });
}

/** Starts the four servers on a new database, warms them up, loads them for `SECONDS`, and stops them. */
async function trial(makeDatabase: (name: string) => Promise<string>, number: number): Promise<Trial> {
  const url = await makeDatabase(`shared_${number}`);
  // Counts calls of PL/pgSQL functions for every connection made after it.
  await asOperator(url, (sql) => sql.unsafe(`ALTER DATABASE "shared_${number}" SET track_functions = 'pl'`));
  const servers = await Promise.all(
    RUNTIMES.map(async (runtime) => {
      const { env, start } = onPostgres(runtime, url, SCHEMA, { LOG_LEVEL: "warn" });
      return { runtime, server: await startServer(runtime, env, start) };
    }),
  );
  const result = { writes: {} as Record<string, number>, refused: {} as Record<string, number> };
  try {
    const startsAt = Date.now() + WARM_UP_MS;
    const endsAt = startsAt + SECONDS * 1000;
    const counted = () => {
      const now = Date.now();
      return now >= startsAt && now < endsAt;
    };
    await Promise.all(
      servers.flatMap(({ runtime, server }) =>
        Array.from({ length: CLIENTS }, () => client(server, runtime, () => Date.now() < endsAt, counted, result)),
      ),
    );
    // Each connection hands PostgreSQL its counts when it ends: the servers stop first.
    await Promise.all(servers.map(({ server }) => server.stop()));
    await new Promise((done) => setTimeout(done, 1_500));
    const after = await counters(url);
    return { ...result, changes: after.change - INITIAL_TASKS.length, calls: after.calls };
  } finally {
    await Promise.all(servers.map(({ server }) => server.stop().catch(() => {})));
  }
}

const loadAtStart = loadavg()[0] ?? 0;
const postgres = await startPostgres();
const trials: Trial[] = [];
try {
  for (let number = 1; number <= REPEATS; number++) {
    const done = await trial(postgres.createDatabase, number);
    trials.push(done);
    const total = Object.values(done.writes).reduce((a, b) => a + b, 0);
    console.log(`trial ${number}: ${(total / SECONDS).toFixed(0)} writes/s`, JSON.stringify(done));
  }
} finally {
  await postgres.stop();
}

const perSecond = (trial: Trial) => Object.values(trial.writes).reduce((a, b) => a + b, 0) / SECONDS;
const callsPerChange = (trial: Trial) =>
  Object.entries(trial.calls)
    .filter(([, calls]) => calls > 0)
    .map(([name, calls]) => `${name} ${(calls / Math.max(1, trial.changes)).toFixed(3)}`)
    .join(", ");
const rows = trials.map(
  (trial, at) =>
    `| ${at + 1} | ${perSecond(trial).toFixed(0)} | ${RUNTIMES.map((runtime) => ((trial.writes[runtime] ?? 0) / SECONDS).toFixed(0)).join(" / ")} | ${trial.changes} | ${callsPerChange(trial)} | ${JSON.stringify(trial.refused)} |`,
);
const report = `# One PostgreSQL list, four runtimes

${new Date().toISOString()}: Node, Bun, Deno and workerd servers (\`LOG_LEVEL=warn\`) on one schema of a
throwaway PostgreSQL (fsync off), ${CLIENTS} clients per server, each creating, completing and deleting
tasks of the default list, for ${SECONDS} s after 1 s of warm-up. Load average at start ${loadAtStart.toFixed(2)},
at end ${(loadavg()[0] ?? 0).toFixed(2)}.

**Median: ${median(trials.map(perSecond)).toFixed(0)} writes/s.**

Each function's calls per change count the warm-up too; \`apply_change\` calls past one per change are
writes decided against a copy another process's change had made stale, and decided again.

| trial | writes/s | node / bun / deno / workerd | changes | function calls per change | refused |
| --- | --- | --- | --- | --- | --- |
${rows.join("\n")}
`;
const out = fileURLToPath(new URL("../results/partial/", import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(`${out}postgres-shared.md`, report);
console.log(report);
