// A list made a moment before, followed on one runtime's server while the other three write to it,
// all on one PostgreSQL database: its subscribers get every change, each once, in order.
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { EventReader, SocketReader } from "../conformance/events.ts";
import { eventually } from "../support/eventually.ts";
import { type RunningServer, type Runtime, startServer } from "../support/server.ts";
import { timeScaled } from "../support/time-scale.ts";
import { onPostgres } from "./servers.ts";

const SCHEMA = "new_list_feed";
const RUNTIMES: readonly Runtime[] = ["node", "bun", "deno", "workerd"];
/**
 * A fifth of the contract's lengths: a keep-alive comment after 3 s of silence, which tells that the
 * subscribers have read the list, and pings 4 s apart, so that a WebSocket outlives the pause of its
 * server below on a busy machine (a twentieth, pings 1 s apart, dropped one paused for 2 s).
 */
const TIME_SCALE = 0.2;
/**
 * Lists made and followed per subscribing server: one, so four in all, each of which lost changes on
 * the code before the fix; more only lengthens npm test.
 */
const LISTS_EACH = 1;
/**
 * The longest a subscriber's server is paused: Bun ends a connection silent for 8 s (its least
 * idle time-out), and the stream's last keep-alive may have come 3 s before the pause.
 */
const MAX_PAUSE_MS = 3_000;
const JSON_BODY = { "Content-Type": "application/json" };

/** A change as a subscriber got it, over either transport. */
interface Seen {
  readonly change: number;
  readonly event: string;
  readonly id: number;
  /** The task's JSON, or `{"id":N}` for a deletion. */
  readonly data: string;
}

/** The next change a subscriber gets, whatever transport carries it. */
type Source = (what: string) => Promise<Seen>;

function sseSource(reader: EventReader): Source {
  return async (what) => {
    const [event] = await reader.take(1, what);
    if (event === undefined) throw new Error(`${what}: no event`);
    const data = event.data;
    return { change: Number(event.id), event: event.event ?? "", id: (JSON.parse(data) as { id: number }).id, data };
  };
}

function socketSource(reader: SocketReader): Source {
  return async (what) => {
    const [message] = await reader.take(1, what);
    if (message === undefined) throw new Error(`${what}: no message`);
    const { id, event, data } = JSON.parse(message) as { id: number; event: string; data: { id: number } };
    return { change: id, event, id: data.id, data: JSON.stringify(data) };
  };
}

/** Reads `source` until the change numbered `last` (or a later one) came; returns every change it got. */
async function readThrough(source: Source, last: number, what: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  while ((seen.at(-1)?.change ?? 0) < last) seen.push(await source(what));
  return seen;
}

/**
 * The tasks a client holds after applying `seen` to nothing, by id as the contract says, checking
 * that a `task` names a task not held, and an `update` or `delete` one held.
 */
function held(seen: readonly Seen[], what: string): unknown[] {
  const tasks = new Map<number, unknown>();
  for (const { event, id, data, change } of seen) {
    expect(tasks.has(id), `${what}: "${event}" of task ${id} by change ${change}`).toBe(event !== "task");
    if (event === "delete") tasks.delete(id);
    else tasks.set(id, JSON.parse(data));
  }
  return [...tasks.entries()].sort(([a], [b]) => a - b).map(([, task]) => task);
}

describe("a list made a moment before, on servers of Node, Bun, Deno and workerd sharing one database", () => {
  const { url } = inject("postgres");
  const running = new Map<Runtime, RunningServer>();
  const baseUrl = (runtime: Runtime) => {
    const server = running.get(runtime);
    if (server === undefined) throw new Error(`The ${runtime} server did not start`);
    return server.baseUrl;
  };
  beforeAll(async () => {
    await Promise.all(
      RUNTIMES.map(async (runtime) => {
        const { env, start } = onPostgres(runtime, url, SCHEMA, { ...timeScaled(TIME_SCALE), LOG_LEVEL: "warn" });
        running.set(runtime, await startServer(runtime, env, start));
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([...running.values()].map((server) => server.stop()));
  });

  /**
   * Runs `work` while the server of `runtime` is stopped (SIGSTOP), as a busy machine may pause a
   * process: once it runs again it hears at once of every change `work` made meanwhile. The pause
   * lasts {@link MAX_PAUSE_MS} at most, however long `work` takes on a busy machine.
   */
  async function paused<T>(runtime: Runtime, work: () => Promise<T>): Promise<T> {
    const server = running.get(runtime);
    if (server === undefined) throw new Error(`The ${runtime} server did not start`);
    process.kill(server.pid, "SIGSTOP");
    const done = work();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([done, new Promise((resume) => (timer = setTimeout(resume, MAX_PAUSE_MS)))]);
    } finally {
      clearTimeout(timer);
      process.kill(server.pid, "SIGCONT");
    }
    return done;
  }

  /**
   * Writes to list `name` through every server but `subscribed`, each group at once: adds, then
   * edits (several of one task), completions, deletions and more adds, while `subscribed` is paused;
   * then the same again while it runs, and one last add. Returns how many changes they made: each
   * answered 200 or 204, so each is one.
   */
  async function burst(subscribed: Runtime, name: string): Promise<number> {
    const writers = RUNTIMES.filter((runtime) => runtime !== subscribed);
    let made = 0;
    const send = async (at: number, method: string, path: string, body?: unknown): Promise<number> => {
      const runtime = writers[at % writers.length] as Runtime;
      const res = await fetch(`${baseUrl(runtime)}/lists/${name}/tasks${path}`, {
        method,
        headers: JSON_BODY,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${path} on ${runtime}`).toBe(method === "DELETE" ? 204 : 200);
      made += 1;
      return method === "DELETE" ? 0 : ((await res.json()) as { id: number }).id;
    };
    const mixed = async (group: string) => {
      const added = await Promise.all(
        Array.from({ length: 6 }, (_, at) => send(at, "POST", "", { title: `${group} ${at}`, completed: false })),
      );
      const [edited, ...others] = added;
      await Promise.all([
        ...Array.from({ length: 6 }, (_, at) => send(at, "PATCH", `/${edited}`, { title: `${group} edit ${at}` })),
        ...others.map((id, at) =>
          at % 2 === 0 ? send(at, "DELETE", `/${id}`) : send(at, "PATCH", `/${id}`, { completed: true }),
        ),
        ...Array.from({ length: 3 }, (_, at) => send(at + 1, "POST", "", { title: `${group} later`, completed: true })),
      ]);
    };
    await paused(subscribed, () => mixed("Unheard"));
    await mixed("Heard");
    // Ends on an addition: a deletion is not sent to a subscriber that never held its task.
    await send(0, "POST", "", { title: "Last", completed: false });
    return made;
  }

  for (const subscribed of RUNTIMES) {
    test(`a subscriber of ${subscribed} by SSE and by WebSocket from cursor 0, to a list made a moment before that the other three then write to at once, some while it is paused, gets every change, each once and in change order, and holds the list`, async () => {
      const writers = RUNTIMES.filter((runtime) => runtime !== subscribed);
      for (let round = 0; round < LISTS_EACH; round++) {
        const name = `fresh-${subscribed}-${round}`;
        const maker = writers[round % writers.length] as Runtime;
        const made = await fetch(`${baseUrl(maker)}/lists/${name}`, {
          method: "PUT",
          headers: JSON_BODY,
          body: JSON.stringify({ title: `Followed on ${subscribed}` }),
        });
        expect(made.status).toBe(201);
        const events = `${baseUrl(subscribed)}/lists/${name}/tasks/events?after=0`;
        const socket = new SocketReader(new WebSocket(events.replace(/^http/, "ws")));
        let stream: EventReader | undefined;
        try {
          await socket.opened();
          const res = await fetch(events);
          expect(res.status).toBe(200);
          if (res.body === null) throw new Error("An event stream must have a body");
          stream = new EventReader(res.body);
          // A keep-alive comment comes only after the stream's first read, after 3 s of silence; the
          // socket's began before the stream was asked for. Once it came, both subscribers have read
          // the list at change 0, so each change after is theirs to get.
          const quiet = stream;
          await eventually(() => (quiet.comments.includes(": keep-alive") ? true : undefined));
          const last = await burst(subscribed, name);
          const list = (await (await fetch(`${baseUrl(maker)}/lists/${name}/tasks`)).json()) as unknown[];
          const every = Array.from({ length: last }, (_, at) => at + 1);
          for (const [transport, source] of [
            ["SSE", sseSource(stream)],
            ["WebSocket", socketSource(socket)],
          ] as const) {
            const what = `${transport} subscriber of ${subscribed} to ${name}`;
            const seen = await readThrough(source, last, what);
            expect(
              seen.map((change) => change.change),
              `the changes the ${what} got`,
            ).toEqual(every);
            expect(held(seen, what), `the list the ${what} holds`).toEqual(list);
          }
        } finally {
          stream?.close();
          socket.close();
        }
      }
    });
  }
});
