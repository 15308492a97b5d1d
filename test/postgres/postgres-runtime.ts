import { expect, inject, test } from "vitest";
import { FILLED_LIST } from "../conformance/configured.ts";
import { createTask, describeDurableServer, postTask, readList } from "../sqlite/durable-server.ts";
import { describeKillMidLoad } from "../sqlite/kill-mid-load.ts";
import { describeListsKilled } from "../sqlite/lists-killed.ts";
import { describeAlongside } from "../support/describe-alongside.ts";
import { eventually } from "../support/eventually.ts";
import { freePort, type Runtime, startServer } from "../support/server.ts";
import { expectNonZeroExit, startFailure } from "../support/server-fixture.ts";
import { asOperator, logLinesWith, onPostgres } from "./servers.ts";

/**
 * Registers every check of TASK_STORE=postgres on `runtime`'s real server, against the project's
 * throwaway database: the core of the store's part of the conformance suite (the whole suite, with
 * every setting moved too, runs in-process in conformance.test.ts), on Node the byte limit, a restart
 * that keeps the list and a kill mid-load, a list already past a limit, and the start-up refusals
 * (a Worker's lost database is test/postgres/outage.test.ts's).
 */
export function describePostgresRuntime(runtime: Runtime): void {
  const { url, password } = inject("postgres");
  const list = (schema: string, env: Readonly<Record<string, string>> = {}) =>
    onPostgres(runtime, url, `${runtime}_${schema}`, env);

  // The whole suite runs on the same SQL in-process (conformance.test.ts), on the default list and
  // a named one: the core shows the driver on each runtime, and on Workers each request opens a
  // connection of its own. Node runs it on both lists; Bun, Deno and the Worker on a named list,
  // whose requests use every query the default list's do, and the directory's besides (the default
  // list's paths are the app's, shown on every runtime by test/conformance). The list filled and
  // the server restarted and killed once, on Node: the list is the database's, which no runtime's
  // code keeps, and servers of all four share one list in shared-list.test.ts.
  const durable = runtime === "node";
  const plain = list("default", FILLED_LIST.env);
  describeDurableServer(
    runtime,
    "TASK_STORE=postgres",
    () => plain.env,
    durable ? { fresh: true, maxListBytes: FILLED_LIST.maxListBytes } : { fresh: true },
    { start: plain.start, part: "core", durability: durable, lists: durable ? "default and named" : "named" },
  );
  if (durable) {
    const killed = list("killed");
    describeKillMidLoad(runtime, "TASK_STORE=postgres", () => killed.env, killed.start);
    const lists = list("lists_killed");
    describeListsKilled(runtime, "TASK_STORE=postgres", () => lists.env, lists.start);
  }

  describeAlongside(`${runtime} server on a list already past MAX_TASKS`, () => {
    const title = `a ${runtime} server on a list already past MAX_TASKS serves every task, returns 507, and logs a warning once`;
    test(title, async () => {
      const { env, start } = list("over_limit");
      // Any process on the schema fills the list.
      const filler = onPostgres("node", url, `${runtime}_over_limit`);
      const first = await startServer("node", filler.env, filler.start);
      try {
        for (let i = 0; i < 3; i++) await createTask(first.baseUrl, { title: `Task ${i}`, completed: false });
      } finally {
        await first.stop();
      }
      const server = await startServer(runtime, { ...env, MAX_TASKS: "3" }, start);
      try {
        const served = await readList(server.baseUrl);
        expect(served.tasks.map((task) => task.id)).toEqual([1, 2, 3, 4, 5]);
        const refused = await postTask(server.baseUrl, { title: "Past the limit", completed: false });
        expect(refused.status).toBe(507);
        expect(JSON.parse(refused.text)).toEqual({ message: "Task list is full: it holds the maximum of 3 tasks" });
        expect(await readList(server.baseUrl)).toEqual(served);
        // A Worker says so on its first request, so the line may come after the answers.
        const found = () => logLinesWith(server.output(), "more than MAX_TASKS (3)");
        await eventually(() => (found().length > 0 ? true : undefined));
        const warnings = found();
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ level: "warn" });
        expect(String(warnings[0]?.message)).toContain("The list holds 5 tasks, more than MAX_TASKS (3)");
      } finally {
        await server.stop();
      }
    });
  });

  if (runtime !== "workerd") describeServerRefusals(runtime, url, password);
}

/** What stops Node, Bun and Deno at start: a database they cannot reach, log in to or use, and bad settings. */
function describeServerRefusals(runtime: Runtime, url: string, password: string): void {
  describeAlongside(`${runtime} server with a database it cannot use`, () => {
    const unreachable = "DATABASE_URL must name a PostgreSQL database this process can reach and log in to, got";

    test("a database nobody answers at stops it at start with a non-zero exit, naming DATABASE_URL with its password hidden", async () => {
      const port = await freePort();
      const secret = `never-shown-${crypto.randomUUID()}`;
      const message = await startFailure(runtime, {
        TASK_STORE: "postgres",
        DATABASE_URL: `postgres://tasks:${secret}@127.0.0.1:${port}/tasks`,
      });
      expectNonZeroExit(message);
      expect(message).toContain(`${unreachable} "postgres://tasks:***@127.0.0.1:${port}/tasks": ECONNREFUSED`);
      expect(message).not.toContain(secret);
    });

    test("a wrong password stops it at start, naming DATABASE_URL and the refusal, and neither password", async () => {
      const wrong = `wrong-${crypto.randomUUID()}`;
      const message = await startFailure(runtime, {
        TASK_STORE: "postgres",
        DATABASE_URL: url.replace(password, wrong),
      });
      expectNonZeroExit(message);
      expect(message).toContain(
        `${unreachable} "${url.replace(password, "***")}": 28P01 password authentication failed`,
      );
      expect(message).not.toContain(wrong);
      expect(message).not.toContain(password);
    });

    test.each([
      {
        name: "DATABASE_SCHEMA",
        value: "Tasks-List",
        expected: "DATABASE_SCHEMA must be a schema name of 1 to 63 lowercase",
      },
      { name: "DATABASE_POOL_SIZE", value: "0", expected: "DATABASE_POOL_SIZE must be a whole number from 1 to 100" },
    ])("$name=$value stops it at start with a non-zero exit, naming $name", async ({ name, value, expected }) => {
      const message = await startFailure(runtime, { TASK_STORE: "postgres", DATABASE_URL: url, [name]: value });
      expectNonZeroExit(message);
      expect(message).toContain(expected);
      expect(message).not.toContain(password);
    });

    test("a schema whose tables were made for something else stops it at start, naming DATABASE_SCHEMA, and stays as it was", async () => {
      const schema = `${runtime}_foreign`;
      await asOperator(url, async (sql) => {
        await sql
          .unsafe(
            `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.tasks (name text); INSERT INTO ${schema}.tasks VALUES ('mine')`,
          )
          .simple();
      });
      const message = await startFailure(runtime, {
        TASK_STORE: "postgres",
        DATABASE_URL: url,
        DATABASE_SCHEMA: schema,
      });
      expectNonZeroExit(message);
      expect(message).toContain(
        `DATABASE_SCHEMA must name a schema of the database at DATABASE_URL that holds a task list`,
      );
      expect(message).toContain(`got "${schema}"`);
      expect(message).toContain('42P07 relation "tasks" already exists');
      expect(message).not.toContain(password);
      const rows = await asOperator(url, (sql) => sql.unsafe(`SELECT * FROM ${schema}.tasks`));
      expect([...rows]).toEqual([{ name: "mine" }]);
    });
  });
}
