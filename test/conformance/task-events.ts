// The contract's live changes of a list whose tasks change: change numbers, `update`, `delete` and
// `reset` events, and a subscriber that applies events by id holding the list exactly.
import { check, checkEqual, fail, type Task } from "../support/check.ts";
import { type EventReader, SocketReader, type StreamEvent } from "../support/subscriber-readers.ts";
import { type Client, jsonPost } from "./client.ts";
import { checkQuiet, subscribe } from "./live.ts";
import type { StatefulCase } from "./stateful.ts";
import { changed, checkDeleteData, toTask } from "./task-changes.ts";

const EVENTS = "/tasks/events";
/** Edits of one task and new tasks sent at once: more than a subscriber reads between two of its reads. */
const BURST_EDITS = 30;
const BURST_TASKS = 5;

/** One change as a subscriber sees it, from either transport. */
interface Change {
  readonly id: number | undefined;
  readonly event: string;
  readonly data: unknown;
}

/** An SSE event as a change; fails on an event the contract does not name. */
function fromStream(event: StreamEvent): Change {
  const name = event.event ?? fail(`an event must be named, got ${event.raw}`);
  check(["task", "update", "delete", "reset"].includes(name), `unknown event ${name}`);
  if (name === "reset") checkEqual([event.id, event.data], [undefined, "{}"], "the id and data of a reset");
  return { id: event.id === undefined ? undefined : Number(event.id), event: name, data: JSON.parse(event.data) };
}

/** A WebSocket message as a change: `{"id", "event", "data"}`, or `{"event": "reset", "data": {}}`. */
function fromMessage(text: string): Change {
  const message = JSON.parse(text) as { id?: number; event: string; data: unknown };
  const keys = message.event === "reset" ? ["event", "data"] : ["id", "event", "data"];
  checkEqual(Object.keys(message), keys, `keys of the message ${text}`);
  return { id: message.id, event: message.event, data: message.data };
}

/** What a client that applies events by id holds: task and update put it in place, delete removes, reset empties. */
function apply(held: Map<number, Task>, change: Change): void {
  if (change.event === "reset") held.clear();
  else if (change.event === "delete") held.delete((change.data as { id: number }).id);
  else held.set((change.data as Task).id, change.data as Task);
}

/** Reads changes until the one for `task`'s creation or edit, and returns every change read. */
async function changesUntil(next: () => Promise<Change>, task: Task): Promise<Change[]> {
  const seen: Change[] = [];
  for (;;) {
    const change = await next();
    seen.push(change);
    if (change.event !== "delete" && JSON.stringify(change.data) === JSON.stringify(task)) return seen;
  }
}

/** The next change from an SSE reader. */
const nextOf = (reader: EventReader) => async () =>
  fromStream((await reader.take(1, "the next event"))[0] ?? fail("no event"));

/** Checks that applying `changes` to an empty list holds exactly what GET /tasks answers now. */
async function checkHeld(client: Client, changes: readonly Change[], what: string): Promise<void> {
  const held = new Map<number, Task>();
  for (const change of changes) apply(held, change);
  const list = await client.readList();
  checkEqual(
    [...held.values()].sort((a, b) => a.id - b.id),
    list.tasks,
    what,
  );
}

/** Checks that change numbers only grow, one event per change. */
function checkIncreasing(changes: readonly Change[], what: string): void {
  const ids = changes.flatMap((change) => (change.id === undefined ? [] : [change.id]));
  check(
    ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0)),
    `${what}: change numbers must grow, got ${ids}`,
  );
}

/** The live cases of changing tasks; `sockets` adds the same over a WebSocket. */
export function taskEventCases(sockets: boolean): StatefulCase[] {
  return [
    {
      name: "edits and deletions reach a subscriber as update and delete events with the next change numbers, and a client applying events by id holds the list",
      core: true,
      async run(client) {
        const sentinel = await client.create({ title: "Followed, then changed", completed: false });
        const reader = await subscribe(client, "?after=0");
        try {
          const backlog = await changesUntil(nextOf(reader), sentinel);
          const cursor = backlog.at(-1)?.id ?? fail("the backlog's last event has no id");
          const patched = changed(await client.send(toTask("PATCH", sentinel.id, { completed: true })), "PATCH");
          checkEqual(
            fromStream((await reader.take(1, "the update"))[0] as StreamEvent),
            {
              id: cursor + 1,
              event: "update",
              data: patched,
            },
            "the update event",
          );
          checkEqual((await client.send(toTask("DELETE", sentinel.id))).status, 204, "DELETE");
          const deletion = (await reader.take(1, "the delete"))[0] as StreamEvent;
          checkEqual([deletion.id, deletion.event], [String(cursor + 2), "delete"], "the delete event's id and name");
          checkDeleteData(deletion.data, sentinel.id);
          const added = await client.create({ title: "After the deletion", completed: true });
          const creation = fromStream((await reader.take(1, "the new task"))[0] as StreamEvent);
          checkEqual(creation, { id: cursor + 3, event: "task", data: added }, "the new task's event");
          const all = [...backlog, { id: cursor + 1, event: "update", data: patched }, fromStream(deletion), creation];
          checkIncreasing(all, "the events");
          await checkHeld(client, all, "the list a subscriber applying every event holds");
        } finally {
          reader.close();
        }
      },
    },
    {
      name: "a subscriber resuming from any earlier change number gets one event per task changed since, in change order, and then holds the list",
      async run(client) {
        const first = await client.create({ title: "Resumed over", completed: false });
        const second = await client.create({ title: "Resumed over too", completed: false });
        const reader = await subscribe(client, "?after=0");
        let changes: Change[];
        try {
          changes = await changesUntil(nextOf(reader), second);
        } finally {
          reader.close();
        }
        const cursor = changes.at(-1)?.id ?? fail("no change number");
        changed(await client.send(toTask("PATCH", first.id, { title: "Resumed over, renamed" })), "PATCH");
        changed(await client.send(toTask("PATCH", second.id, { completed: true })), "PATCH");
        checkEqual((await client.send(toTask("DELETE", first.id))).status, 204, "DELETE");
        const third = await client.create({ title: "Resumed into", completed: false });
        for (const from of [cursor, cursor + 1, cursor + 2, cursor + 3]) {
          const resumed = await subscribe(client, "", { "Last-Event-ID": String(from) });
          try {
            // What a subscriber that followed until change `from` saw of the changes since `cursor`.
            const since: Change[] = [
              { id: cursor + 1, event: "update", data: { ...first, title: "Resumed over, renamed" } },
              { id: cursor + 2, event: "update", data: { ...second, completed: true } },
              { id: cursor + 3, event: "delete", data: { id: first.id } },
              { id: cursor + 4, event: "task", data: third },
            ];
            const expected = since.filter((change) => (change.id ?? 0) > from && change.id !== cursor + 1);
            const got = await resumed.take(expected.length, `the changes after ${from}`);
            checkEqual(got.map(fromStream), expected, `the changes after change ${from}`);
            const seenBefore = since.filter((change) => (change.id ?? 0) <= from);
            await checkHeld(
              client,
              [...changes, ...seenBefore, ...got.map(fromStream)],
              `the list held resuming from ${from}`,
            );
          } finally {
            resumed.close();
          }
        }
      },
    },
    {
      name: "every change made while a subscriber follows reaches it once, in change-number order, however many come at once and to one task",
      core: true,
      async run(client) {
        const task = await client.create({ title: "Edited by many at once", completed: false });
        const reader = await subscribe(client, "?after=0");
        const socket = sockets ? new SocketReader(client.socket(`${EVENTS}?after=0`)) : undefined;
        try {
          const backlog = await changesUntil(nextOf(reader), task);
          const cursor = backlog.at(-1)?.id ?? fail("the backlog's last event has no id");
          let socketBacklog: Change[] = [];
          const nextMessage = async () =>
            fromMessage((await (socket as SocketReader).take(1, "the next message"))[0] ?? fail("no message"));
          if (socket !== undefined) {
            await socket.opened();
            socketBacklog = await changesUntil(nextMessage, task);
          }
          const writes = await Promise.all([
            ...Array.from({ length: BURST_EDITS }, (_, i) =>
              client.send(toTask("PATCH", task.id, { title: `Edit ${i} of one task` })),
            ),
            ...Array.from({ length: BURST_TASKS }, (_, i) =>
              client.send(jsonPost("/tasks", { title: `Added in a burst ${i}`, completed: false })),
            ),
          ]);
          for (const reply of writes) checkEqual(reply.status, 200, "a write of the burst");
          const count = BURST_EDITS + BURST_TASKS;
          const expected = Array.from({ length: count }, (_, i) => cursor + 1 + i);
          const live = (await reader.take(count, "the burst's changes")).map(fromStream);
          checkEqual(
            live.map((change) => change.id),
            expected,
            "the change numbers of the burst, each once and in order",
          );
          await checkHeld(client, [...backlog, ...live], "the list a subscriber applying every change holds");
          if (socket !== undefined) {
            const messages = (await socket.take(count, "the burst's messages")).map(fromMessage);
            checkEqual(
              messages.map((change) => change.id),
              expected,
              "the change numbers of the burst over a WebSocket",
            );
            await checkHeld(client, [...socketBacklog, ...messages], "the list a WebSocket subscriber holds");
          }
          await checkQuiet(reader, "after the burst");
        } finally {
          reader.close();
          socket?.close();
        }
      },
    },
    {
      name: "a cursor newer than the list's last change gets reset, then the whole list, and then follows",
      async run(client) {
        const sentinel = await client.create({ title: "Last before a reset", completed: true });
        const reader = await subscribe(client, "?after=999999999999999");
        try {
          const reset = fromStream((await reader.take(1, "the reset"))[0] as StreamEvent);
          checkEqual(reset, { id: undefined, event: "reset", data: {} }, "the first event");
          const whole = await changesUntil(nextOf(reader), sentinel);
          await checkHeld(client, [reset, ...whole], "the list held after a reset");
          const added = await client.create({ title: "After a reset", completed: false });
          checkEqual(fromStream((await reader.take(1, "the new task"))[0] as StreamEvent).data, added, "new task");
        } finally {
          reader.close();
        }
      },
    },
    ...(sockets ? [socketCase()] : []),
  ];
}

/** The same changes over a WebSocket: one `{"id", "event", "data"}` message each. */
function socketCase(): StatefulCase {
  return {
    name: "a WebSocket subscriber gets edits and deletions as update and delete messages, and a reset for a cursor newer than the list",
    core: true,
    async run(client) {
      const task = await client.create({ title: "Followed by socket", completed: false });
      const reader = new SocketReader(client.socket(`${EVENTS}?after=0`));
      try {
        await reader.opened();
        const next = async () => fromMessage((await reader.take(1, "the next message"))[0] ?? fail("no message"));
        const backlog = await changesUntil(next, task);
        const cursor = backlog.at(-1)?.id ?? fail("no change number");
        const patched = changed(await client.send(toTask("PATCH", task.id, { title: "Renamed by socket" })), "PATCH");
        checkEqual(await next(), { id: cursor + 1, event: "update", data: patched }, "the update message");
        checkEqual((await client.send(toTask("DELETE", task.id))).status, 204, "DELETE");
        checkEqual(await next(), { id: cursor + 2, event: "delete", data: { id: task.id } }, "the delete message");
      } finally {
        reader.close();
      }
      const late = new SocketReader(client.socket(`${EVENTS}?after=999999999999999`));
      try {
        await late.opened();
        const first = fromMessage((await late.take(1, "the reset"))[0] ?? fail("no message"));
        checkEqual(first, { id: undefined, event: "reset", data: {} }, "the first message past the list");
      } finally {
        late.close();
      }
    },
  };
}
