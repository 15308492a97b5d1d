// The contract's "Live changes": `?after=N`, and following the list on /tasks/events by
// Server-Sent Events and, on real servers, by WebSocket.
import { check, checkEqual, fail, type Task } from "../support/check.ts";
import { EventReader, SocketReader, type StreamEvent } from "../support/subscriber-readers.ts";
import { type Client, jsonPost, type Reply } from "./client.ts";
import { checkErrorBody } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";

const EVENTS = "/tasks/events";
/** Cursors that are not a whole number of at most 15 digits. */
const BAD_CURSORS = ["", "-1", "1.5", "1e3", "abc", "0x10", " 7", "1234567890123456"];
/** How long a subscriber is watched for anything more after what it should have received. */
const QUIET_MS = 300;

/** The exact event the contract sends for a task: its id, `event: task`, and its JSON as GET serves it. */
function eventText(task: Task): string {
  return `id: ${task.id}\nevent: task\ndata: ${JSON.stringify(task)}`;
}

/** Opens `events` (the list's /tasks/events) with `headers` and `query`, checks the response starts a stream, and reads it. */
export async function subscribe(
  client: Client,
  query = "",
  headers: Readonly<Record<string, string>> = {},
  events = EVENTS,
): Promise<EventReader> {
  const res = await client.open({ method: "GET", path: `${events}${query}`, headers });
  if (res.status !== 200 || res.body === null) {
    fail(`GET ${events}${query} must start an event stream, got ${res.status} ${await res.text()}`);
  }
  checkEqual(res.headers.get("content-type"), "text/event-stream", `Content-Type of GET ${events}`);
  checkEqual(res.headers.get("cache-control"), "no-cache", `Cache-Control of GET ${events}`);
  return new EventReader(res.body);
}

/** Checks that `events` are exactly the contract's events for `tasks`, in order. */
function checkEvents(events: readonly StreamEvent[], tasks: readonly Task[], what: string): void {
  checkEqual(
    events.map((event) => event.raw),
    tasks.map(eventText),
    what,
  );
}

/** Checks that nothing more arrives for a moment: no task twice, none out of place. */
export async function checkQuiet(reader: { poll(ms: number): Promise<unknown> }, what: string): Promise<void> {
  const extra = await reader.poll(QUIET_MS);
  if (extra !== undefined) fail(`${what}: got more than expected: ${JSON.stringify(extra)}`);
}

/** A response read whole, as the client's `send` gives it. */
async function replyOf(res: Response): Promise<Reply> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: new TextDecoder().decode(bytes) };
}

/** Creates `count` tasks one after another and returns them. */
async function createSome(client: Client, count: number, label: string): Promise<Task[]> {
  const created: Task[] = [];
  for (let i = 0; i < count; i++) created.push(await client.create({ title: `${label} ${i}`, completed: i % 2 === 1 }));
  return created;
}

/** The live cases for a target configured as `client.options` says. */
export function liveCases(options: { sockets?: boolean; maxSubscribers?: number }): StatefulCase[] {
  return [
    ...["/tasks", "/index.php"].map(
      (path): StatefulCase => ({
        name: `GET ${path}?after=N answers the tasks after id N as a JSON array with the list's ETag, and [] past the end`,
        core: true,
        async run(client) {
          const list = await client.readList();
          const last = list.tasks.at(-1)?.id ?? 0;
          for (const after of [0, Math.max(last - 2, 0), last, last + 10]) {
            const reply = await client.send({ method: "GET", path: `${path}?after=${after}` });
            checkEqual(reply.status, 200, `status of GET ${path}?after=${after}`);
            checkEqual(reply.text, JSON.stringify(list.tasks.filter((t) => t.id > after)), `tasks after ${after}`);
            checkEqual(reply.headers.get("etag"), list.etag, `ETag of GET ${path}?after=${after}`);
          }
          const unchanged = await client.send({
            method: "GET",
            path: `${path}?after=${last}`,
            headers: { "If-None-Match": list.etag ?? "" },
          });
          checkEqual(unchanged.status, 304, `status of GET ${path}?after=N with the list's ETag`);
        },
      }),
    ),
    {
      name: "an after that is not a whole number of at most 15 digits returns 400 naming after, on the list and on /tasks/events, even beside a sound Last-Event-ID",
      async run(client) {
        const requests = ["/tasks", "/index.php", EVENTS].map((path) => ({ path, headers: {} }));
        requests.push({ path: EVENTS, headers: { "Last-Event-ID": "1" } });
        for (const { path, headers } of requests) {
          for (const bad of BAD_CURSORS) {
            const res = await client.open({ method: "GET", path: `${path}?after=${encodeURIComponent(bad)}`, headers });
            // A stream started for it would never end: it is not read.
            if (res.status !== 400) await res.body?.cancel();
            const what = `GET ${path}?after=${JSON.stringify(bad)} with ${JSON.stringify(headers)}`;
            checkEqual(res.status, 400, `status of ${what}`);
            checkErrorBody(await replyOf(res), { naming: "after" });
          }
        }
      },
    },
    {
      name: "a Last-Event-ID that is not a whole number of at most 15 digits returns 400 naming it, before any stream",
      async run(client) {
        for (const bad of BAD_CURSORS.filter((cursor) => cursor.trim() === cursor && cursor !== "")) {
          const reply = await client.send({ method: "GET", path: EVENTS, headers: { "Last-Event-ID": bad } });
          checkEqual(reply.status, 400, `status of GET ${EVENTS} with Last-Event-ID ${JSON.stringify(bad)}`);
          checkErrorBody(reply, { naming: "Last-Event-ID" });
        }
      },
    },
    {
      name: "GET /tasks/events sends the tasks after the cursor as events, then each new task once, in id order",
      core: true,
      async run(client) {
        const list = await client.readList();
        const last = list.tasks.at(-1)?.id ?? 0;
        const reader = await subscribe(client, `?after=${last - 1}`);
        try {
          checkEvents(await reader.take(1, "the backlog"), list.tasks.slice(-1), "the backlog after the cursor");
          const created = await createSome(client, 3, "Followed");
          checkEvents(await reader.take(3, "the new tasks"), created, "the new tasks, in id order");
          await checkQuiet(reader, "after the new tasks");
        } finally {
          reader.close();
        }
      },
    },
    {
      name: "with no cursor /tasks/events sends the whole list first",
      async run(client) {
        const list = await client.readList();
        const reader = await subscribe(client);
        try {
          checkEvents(await reader.take(list.tasks.length, "the whole list"), list.tasks, "the whole list as events");
        } finally {
          reader.close();
        }
      },
    },
    {
      name: "Last-Event-ID, as a browser's EventSource sends it when it comes back, wins over after",
      async run(client) {
        const list = await client.readList();
        const last = list.tasks.at(-1)?.id ?? 0;
        const reader = await subscribe(client, "?after=0", { "Last-Event-ID": String(last - 1) });
        try {
          checkEvents(await reader.take(1, "the backlog"), list.tasks.slice(-1), "the tasks after Last-Event-ID");
        } finally {
          reader.close();
        }
      },
    },
    {
      name: "a cursor past the list's last change gets a reset without an id, then the whole list, then each new task",
      core: true,
      async run(client) {
        const list = await client.readList();
        const cursor = (list.tasks.at(-1)?.id ?? 0) + 2;
        const reader = await subscribe(client, `?after=${cursor}`);
        try {
          const [reset] = await reader.take(1, "the reset");
          checkEqual(reset?.raw, "event: reset\ndata: {}", "the event for a cursor past the end");
          checkEvents(
            await reader.take(list.tasks.length, "the whole list"),
            list.tasks,
            "the whole list after a reset",
          );
          const created = await createSome(client, 2, "After a reset");
          checkEvents(await reader.take(2, "the new tasks"), created, "the new tasks after a reset");
          await checkQuiet(reader, "after the new tasks");
        } finally {
          reader.close();
        }
      },
    },
    {
      name: "subscribers that come while tasks are being added each get every task after their cursor once, in id order",
      async run(client) {
        const list = await client.readList();
        const last = list.tasks.at(-1)?.id ?? 0;
        const cursors = [last, Math.max(last - 1, 0), last];
        const readers = await Promise.all(cursors.map((cursor) => subscribe(client, `?after=${cursor}`)));
        try {
          const sent = await Promise.all(
            Array.from({ length: 12 }, (_, i) =>
              client.send(jsonPost("/tasks", { title: `Burst ${i}`, completed: false })),
            ),
          );
          for (const reply of sent) checkEqual(reply.status, 200, "status of a POST of the burst");
          const after = await client.readList();
          for (const [i, reader] of readers.entries()) {
            const expected = after.tasks.filter((task) => task.id > (cursors[i] ?? 0));
            checkEvents(await reader.take(expected.length, `subscriber ${i}`), expected, `what subscriber ${i} got`);
            await checkQuiet(reader, `subscriber ${i}`);
          }
        } finally {
          for (const reader of readers) reader.close();
        }
      },
    },
    {
      name: "HEAD /tasks/events answers the stream's headers without a body, and other methods 405 with Allow: GET, HEAD",
      async run(client) {
        const head = await client.send({ method: "HEAD", path: EVENTS });
        checkEqual(head.status, 200, `status of HEAD ${EVENTS}`);
        checkEqual(head.headers.get("content-type"), "text/event-stream", `Content-Type of HEAD ${EVENTS}`);
        checkEqual(head.text, "", `body of HEAD ${EVENTS}`);
        for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
          const reply = await client.send({ method, path: EVENTS });
          checkEqual(reply.status, 405, `status of ${method} ${EVENTS}`);
          checkEqual(reply.headers.get("allow"), "GET, HEAD", `Allow of ${method} ${EVENTS}`);
          checkEqual(reply.text, "", `body of ${method} ${EVENTS}`);
        }
      },
    },
    ...(options.sockets === true ? socketCases() : []),
    ...(options.maxSubscribers === undefined ? [] : [subscriberLimitCase(options.maxSubscribers)]),
  ];
}

/** A WebSocket message for a task created after the cursor. */
function taskMessage(task: Task): string {
  return `{"id":${task.id},"event":"task","data":${JSON.stringify(task)}}`;
}

/** WebSocket subscribers: the same cursor and order rules, one text message per event. */
function socketCases(): StatefulCase[] {
  return [
    {
      name: "a WebSocket on /tasks/events gets one message per task after the cursor, then each new task once",
      core: true,
      async run(client) {
        const list = await client.readList();
        const last = list.tasks.at(-1)?.id ?? 0;
        const reader = new SocketReader(client.socket(`${EVENTS}?after=${last - 1}`));
        try {
          await reader.opened();
          checkEqual(await reader.take(1, "the backlog"), list.tasks.slice(-1).map(taskMessage), "backlog");
          const created = await createSome(client, 3, "Over a socket");
          checkEqual(
            await reader.take(3, "the new tasks"),
            created.map(taskMessage),
            "the new tasks over the socket, in id order",
          );
          await checkQuiet(reader, "after the new tasks");
        } finally {
          reader.close();
        }
      },
    },
    {
      name: "a WebSocket with a malformed cursor is refused before it opens",
      async run(client) {
        const reader = new SocketReader(client.socket(`${EVENTS}?after=-1`));
        let opened = true;
        try {
          await reader.opened();
        } catch {
          opened = false;
        }
        reader.close();
        check(!opened, "a WebSocket with after=-1 must not open");
      },
    },
  ];
}

/**
 * How long a slot may take to come free once a subscriber leaves: workerd sees an event stream's
 * client go only when it next writes to it, the keep-alive comment up to 15 s later.
 */
const PLACE_FREED_MS = 30_000;

/**
 * MAX_SUBSCRIBERS: past it a subscriber is refused with 503 and Retry-After, until one leaves.
 * Subscribers of earlier cases may still hold slots where leaving is seen late, so it opens
 * subscribers until one is refused, never more than the limit allows.
 */
function subscriberLimitCase(max: number): StatefulCase {
  return {
    name: `past MAX_SUBSCRIBERS (${max}) a subscriber gets 503 with Retry-After, and a slot again once one leaves`,
    async run(client) {
      const readers: EventReader[] = [];
      try {
        let refused: Reply | undefined;
        while (refused === undefined) {
          check(readers.length <= max, `the subscriber after the first ${max} must be refused`);
          const res = await client.open({ method: "GET", path: `${EVENTS}?after=999999999` });
          if (res.status === 200 && res.body !== null) readers.push(new EventReader(res.body));
          else refused = await replyOf(res);
        }
        checkEqual(refused.status, 503, "status of one subscriber past MAX_SUBSCRIBERS");
        checkErrorBody(refused);
        check(refused.headers.get("retry-after") !== null, "a 503 past MAX_SUBSCRIBERS must carry Retry-After");
        readers.pop()?.close();
        const deadline = Date.now() + PLACE_FREED_MS;
        for (;;) {
          const res = await client.open({ method: "GET", path: `${EVENTS}?after=999999999` });
          if (res.status === 200) {
            await res.body?.cancel();
            break;
          }
          await res.body?.cancel();
          if (Date.now() > deadline) fail("a slot must come free once a subscriber leaves");
          await new Promise((done) => setTimeout(done, 50));
        }
      } finally {
        for (const reader of readers) reader.close();
      }
    },
  };
}
