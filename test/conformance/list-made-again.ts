// A deleted list made again under its name: every cursor its old list gave, its last included, gets
// a reset and then the whole new list, over Server-Sent Events, Last-Event-ID (what a browser's
// EventSource sends when it comes back after `gone`) and WebSocket.
import { check, checkEqual, type Task } from "../support/check.ts";
import { SocketReader } from "../support/subscriber-readers.ts";
import { type Client, type ConformanceOptions, jsonPost, parseJson, type Reply, type RequestSpec } from "./client.ts";
import { checkQuiet, subscribe } from "./live.ts";
import type { StatefulCase } from "./stateful.ts";

const RESET_EVENT = "event: reset\ndata: {}";
const RESET_MESSAGE = '{"event":"reset","data":{}}';

/** Sends `request` and checks its status. */
async function expectStatus(client: Client, request: RequestSpec, status: number): Promise<Reply> {
  const reply = await client.send(request);
  checkEqual(reply.status, status, `status of ${request.method} ${request.path}`);
  return reply;
}

/** The case, for a target that serves many lists (one whose suite runs on a named list). */
export function listMadeAgainCases(options: ConformanceOptions): StatefulCase[] {
  if (options.listPath === undefined) return [];
  return [
    {
      name: "a deleted list made again resets every cursor its old list gave, its last included, over SSE, Last-Event-ID and WebSocket",
      core: true,
      async run(client) {
        const path = `/lists/again-${crypto.randomUUID().slice(0, 8)}`;
        const events = `${path}/tasks/events`;
        const title = JSON.stringify({ title: "Made again" });
        const put = { method: "PUT", path, headers: { "Content-Type": "application/json" }, body: title };
        await expectStatus(client, put, 201);
        try {
          for (const name of ["Old one", "Old two"]) {
            await expectStatus(client, jsonPost(`${path}/tasks`, { title: name, completed: false }), 200);
          }
          // The cursor a client of the old list holds: the id of the last event it was sent.
          const old = await subscribe(client, "", {}, events);
          const oldEvents = await old.take(2, "the old list's tasks");
          old.close();
          const cursor = oldEvents.at(-1)?.id ?? "";
          check(/^\d+$/.test(cursor), `an event of the old list must carry a change number, got ${cursor}`);
          await expectStatus(client, { method: "DELETE", path }, 204);
          await expectStatus(client, put, 201);
          const added = await expectStatus(
            client,
            jsonPost(`${path}/tasks`, { title: "New one", completed: true }),
            200,
          );
          const task = parseJson(added, "the new list's task") as Task;
          checkEqual(
            task,
            { id: 3, title: "New one", completed: true },
            "the new list's first task, after the old ids",
          );
          const list = await expectStatus(client, { method: "GET", path: `${path}/tasks` }, 200);
          checkEqual(list.text, `[${added.text}]`, "the new list");

          for (const [query, headers] of [
            [`?after=${cursor}`, {}],
            ["?after=0", { "Last-Event-ID": cursor }],
          ] as const) {
            const what = `a subscriber of the list made again with ${query} ${JSON.stringify(headers)}`;
            const reader = await subscribe(client, query, headers, events);
            try {
              const [reset, first] = await reader.take(2, what);
              checkEqual(reset?.raw, RESET_EVENT, `${what}: its first event`);
              checkEqual([first?.event, first?.data], ["task", added.text], `${what}: the new list's task`);
              check(Number(first?.id) > Number(cursor), `${what}: the task's change number must be past ${cursor}`);
              await checkQuiet(reader, what);
            } finally {
              reader.close();
            }
          }
          if (options.sockets === true) {
            const reader = new SocketReader(client.socket(`${events}?after=${cursor}`));
            try {
              await reader.opened();
              const [reset, first] = await reader.take(2, "a WebSocket of the list made again");
              checkEqual(reset, RESET_MESSAGE, "the WebSocket's first message");
              const message = JSON.parse(first ?? "{}") as { id: number };
              checkEqual(first, `{"id":${message.id},"event":"task","data":${added.text}}`, "the task message");
              check(message.id > Number(cursor), `the task's change number must be past ${cursor}`);
              await checkQuiet(reader, "a WebSocket of the list made again");
            } finally {
              reader.close();
            }
          }
        } finally {
          await client.send({ method: "DELETE", path });
        }
      },
    },
  ];
}
