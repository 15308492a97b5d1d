// How many PostgreSQL connections a Worker's requests open, counted by the database itself.
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { type RunningServer, startServer } from "../support/server.ts";
import { EventReader } from "../support/subscriber-readers.ts";
import { timeScaled } from "../support/time-scale.ts";
import { asOperator, onPostgres } from "./servers.ts";

/** A database of the file's own: its sessions are the Worker's alone. */
const DATABASE = "worker_connections";
/** Requests sent at once to show that each request's client stays its own. */
const CONCURRENT = 24;
/** A stream whose subscriber left learns it at its next keep-alive comment: 1.5 s apart at this scale. */
const TIME_SCALE = 0.1;

describe("a Worker on PostgreSQL", () => {
  const { url } = inject("postgres");
  let server: RunningServer | undefined;
  const running = () => {
    if (server === undefined) throw new Error("The Worker did not start");
    return server;
  };
  const send = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${running().baseUrl}${path}`, init);
    return { status: response.status, text: await response.text() };
  };
  const json = (method: string, body: unknown): RequestInit => ({
    method,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

  beforeAll(async () => {
    await asOperator(url, (sql) => sql.unsafe(`CREATE DATABASE ${DATABASE}`));
    const database = new URL(url);
    database.pathname = `/${DATABASE}`;
    const { env, start } = onPostgres("workerd", database.href, "connections", {
      ...timeScaled(TIME_SCALE),
      LOG_LEVEL: "warn",
    });
    server = await startServer("workerd", env, start);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The Worker's connections open now, and all it ever opened, as the database counts them. */
  const backends = () =>
    asOperator(url, async (sql) => {
      const [row] = await sql.unsafe(
        `SELECT (SELECT count(*) FROM pg_stat_activity WHERE datname = $1)::int AS open,
                (SELECT sessions FROM pg_stat_database WHERE datname = $1)::int AS opened`,
        [DATABASE],
      );
      return { open: Number(row?.open), opened: Number(row?.opened) };
    });
  /** What the Worker ever opened, once none of its connections is open: a closed one's count is in by then. */
  const settledOpened = async () => {
    for (const deadline = Date.now() + 30_000; ; ) {
      const { open, opened } = await backends();
      if (open === 0) return opened;
      if (Date.now() > deadline) throw new Error(`${open} connections of the Worker are still open`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** The connections `request` opened, once the Worker closed every one. */
  const opensFor = async (request: () => Promise<unknown>) => {
    const before = await settledOpened();
    await request();
    return (await settledOpened()) - before;
  };

  test("opens at most one connection for each request, whatever it does, and none is left open after it", async () => {
    const expectStatus = async (status: number, answer: Promise<{ status: number; text: string }>) => {
      const { status: got, text } = await answer;
      expect(got, text).toBe(status);
    };
    // The schema's migrations, made by the first request.
    await expectStatus(200, send("/tasks"));
    const opened: Record<string, number> = {};
    const count = async (name: string, status: number, answer: () => Promise<{ status: number; text: string }>) => {
      opened[name] = await opensFor(() => expectStatus(status, answer()));
    };
    await count("GET /tasks", 200, () => send("/tasks"));
    await count("POST /tasks", 200, () => send("/tasks", json("POST", { title: "Counted", completed: false })));
    const id = JSON.parse((await send("/tasks?after=2")).text)[0]?.id as number;
    await count("PATCH /tasks/{id}", 200, () => send(`/tasks/${id}`, json("PATCH", { completed: true })));
    await count("DELETE /tasks/{id}", 204, () => send(`/tasks/${id}`, { method: "DELETE" }));
    await count("GET /lists", 200, () => send("/lists"));
    await count("PUT /lists/{name}", 201, () => send("/lists/counted", json("PUT", { title: "Counted" })));
    await count("GET /lists/{name}/tasks", 200, () => send("/lists/counted/tasks"));
    await count("POST /lists/{name}/tasks", 200, () =>
      send("/lists/counted/tasks", json("POST", { title: "Named", completed: false })),
    );
    await count("GET /openapi.json", 200, () => send("/openapi.json"));
    console.log(`Connections opened per request: ${JSON.stringify(opened)}`);

    expect(opened).toEqual({
      "GET /tasks": 1,
      "POST /tasks": 1,
      "PATCH /tasks/{id}": 1,
      "DELETE /tasks/{id}": 1,
      "GET /lists": 1,
      "PUT /lists/{name}": 1,
      "GET /lists/{name}/tasks": 1,
      "POST /lists/{name}/tasks": 1,
      "GET /openapi.json": 0,
    });
  });

  test(`${CONCURRENT} requests at once each get their own answer, and leave no connection open`, async () => {
    const titles = Array.from({ length: CONCURRENT / 2 }, (_, n) => `At once ${n}`);
    expect((await send("/lists/together", json("PUT", { title: "Together" }))).status).toBe(201);
    const answers = await Promise.all([
      ...titles.map((title) => send("/lists/together/tasks", json("POST", { title, completed: false }))),
      ...titles.map(() => send("/lists/together/tasks")),
    ]);
    const posts = answers.slice(0, titles.length);
    expect(posts.map((answer) => answer.status)).toEqual(titles.map(() => 200));
    expect(posts.map((answer) => JSON.parse(answer.text).title)).toEqual(titles);
    for (const read of answers.slice(titles.length)) expect(read.status, read.text).toBe(200);
    const list = JSON.parse((await send("/lists/together/tasks")).text) as { title: string }[];
    expect(list.map((task) => task.title).sort()).toEqual([...titles].sort());
    await settledOpened();
  });

  test("an event stream's subscriber that leaves closes every connection its stream opened", async () => {
    const before = await settledOpened();
    const controller = new AbortController();
    const response = await fetch(`${running().baseUrl}/tasks/events`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const events = new EventReader(response.body as ReadableStream<Uint8Array>);
    await send("/tasks", json("POST", { title: "Followed", completed: false }));
    // The task reaches the stream once it asked the database again.
    for (;;) {
      const [event] = await events.take(1, "the task written");
      if (event?.data.includes('"Followed"')) break;
    }
    controller.abort();
    events.close();
    expect(await settledOpened()).toBeGreaterThan(before);
    // The stream asks no more: what was opened stays as it is for several of its polls.
    for (const deadline = Date.now() + 60_000; ; ) {
      const opened = await settledOpened();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      if ((await settledOpened()) === opened) break;
      if (Date.now() > deadline) throw new Error("The stream still opens connections after its subscriber left");
    }
  });
});
