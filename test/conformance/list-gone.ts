// The contract's deleted list as its subscribers see it: `gone`, and then the end of the stream.
import { checkEqual, fail } from "../support/check.ts";
import { EVENT_TIMEOUT_MS, EventReader, SocketReader } from "../support/subscriber-readers.ts";
import { type Client, jsonPost } from "./client.ts";
import type { StatefulCase } from "./stateful.ts";

/**
 * How often the deleted list is read while its subscribers' streams are awaited: often enough that
 * a Durable Object never goes the 10 s without a request after which workerd drops it (and with it
 * any connection it forgot to end), seldom enough to leave the isolate little garbage to collect,
 * which would drop such a connection too.
 */
const READ_EVERY_MS = 1000;

/** Creates a list of its own for a case, with one task, and returns its path. */
async function newList(client: Client): Promise<string> {
  const path = `/lists/gone-${crypto.randomUUID().slice(0, 8)}`;
  const made = await client.send({
    method: "PUT",
    path,
    body: JSON.stringify({ title: "Deleted while followed" }),
    headers: { "Content-Type": "application/json" },
  });
  checkEqual(made.status, 201, `status of PUT ${path}`);
  const added = await client.send(jsonPost(`${path}/tasks`, { title: "Seen before the deletion", completed: false }));
  checkEqual(added.status, 200, `status of POST ${path}/tasks`);
  return path;
}

/**
 * Waits until every reader's stream has ended, reading the deleted list meanwhile (each read
 * answers 410), so that a stream the service leaves open is never taken for one that ended when
 * idle state was let go of.
 */
async function untilEnded(client: Client, path: string, readers: readonly { readonly ended: string | undefined }[]) {
  const deadline = Date.now() + EVENT_TIMEOUT_MS;
  while (readers.some((reader) => reader.ended === undefined)) {
    if (Date.now() > deadline) {
      fail(() => `every stream must end once its list is deleted: ${readers.map((r) => r.ended ?? "still open")}`);
    }
    const read = await client.send({ method: "GET", path: `${path}/tasks` });
    checkEqual(read.status, 410, `status of GET ${path}/tasks once the list is deleted`);
    await new Promise((done) => setTimeout(done, READ_EVERY_MS));
  }
}

/** Who follows the list in {@link checkListGone}, and how long nothing reaches it before its deletion. */
export interface Followers {
  readonly stream: boolean;
  readonly socket: boolean;
  /** Milliseconds between the subscribers' first events and the deletion, in which nothing else reaches the list. */
  readonly idleMs?: number;
}

/**
 * Creates a list, follows it as `followers` say, deletes it, and checks that each subscriber gets
 * gone and then sees its stream end (a WebSocket closed with 1000), and that subscribing again
 * answers 410.
 */
export async function checkListGone(client: Client, followers: Followers): Promise<void> {
  const path = await newList(client);
  const events = `${path}/tasks/events`;
  let stream: EventReader | undefined;
  if (followers.stream) {
    const res = await client.open({ method: "GET", path: `${events}?after=0` });
    checkEqual(res.status, 200, `status of GET ${events}`);
    stream = new EventReader(res.body ?? fail(`GET ${events} must have a body`));
  }
  const socket = followers.socket ? new SocketReader(client.socket(`${events}?after=0`)) : undefined;
  try {
    await socket?.opened();
    const first = await stream?.take(1, "the task");
    if (first !== undefined) checkEqual(first[0]?.event, "task", "the event stream's first event");
    const message = await socket?.take(1, "the task");
    if (message !== undefined) checkEqual(JSON.parse(message[0] ?? "{}").event, "task", "the socket's first message");
    await new Promise((done) => setTimeout(done, followers.idleMs ?? 0));
    const deleted = await client.send({ method: "DELETE", path });
    checkEqual(deleted.status, 204, `status of DELETE ${path}`);
    if (stream !== undefined) {
      const [gone] = await stream.take(1, "gone");
      checkEqual([gone?.event, gone?.id, gone?.data], ["gone", undefined, "{}"], "the event of a deleted list");
    }
    if (socket !== undefined) {
      checkEqual(await socket.take(1, "gone"), ['{"event":"gone","data":{}}'], "the message of a deleted list");
    }
    await untilEnded(
      client,
      path,
      [stream, socket].filter((reader) => reader !== undefined),
    );
    if (stream !== undefined) {
      checkEqual(stream.ended, "the server ended the stream", "how the event stream ended");
    }
    if (socket !== undefined) checkEqual(socket.closeCode, 1000, "the close code after gone");
    const again = await client.open({ method: "GET", path: events });
    await again.body?.cancel();
    checkEqual(again.status, 410, `status of GET ${events} once the list is deleted`);
  } finally {
    stream?.close();
    socket?.close();
  }
}

/** The cases of a list deleted under its subscribers; with `sockets`, a WebSocket follows it beside the event stream. */
export function listGoneCases({ sockets, oneList }: { sockets?: boolean; oneList?: boolean }): StatefulCase[] {
  return [
    {
      ...(oneList === true ? { skip: "an app over one store serves no list that can be deleted" } : {}),
      name: `subscribers of a list that is deleted get gone, then their streams end${sockets === true ? " (a WebSocket closes with 1000)" : ""}, and subscribing again answers 410`,
      core: true,
      run: (client) => checkListGone(client, { stream: true, socket: sockets === true }),
    },
  ];
}
