// The contract's "Sharing a list": a list key made, listed and revoked at /lists/{name}/keys, what a
// read and a write key open on their list, and that they open nothing else.
import { check, checkEqual } from "../support/check.ts";
import { checkEnds, SocketReader } from "../support/subscriber-readers.ts";
import { type Client, type ConformanceOptions, jsonPost, parseJson, type RequestSpec } from "./client.ts";
import { checkErrorBody } from "./expect.ts";
import { subscribe } from "./live.ts";
import type { StatefulCase } from "./stateful.ts";

const INVALID_TOKEN = 'Bearer realm="tasks", error="invalid_token"';

interface MadeKey {
  readonly id: string;
  readonly access: string;
  readonly label: string;
  readonly expires: string | null;
  readonly key: string;
}

/** Sends `request` and checks its status, with a 401 or 403's body and challenge as the contract says. */
async function expectStatus(client: Client, request: RequestSpec, status: number, what: string) {
  const reply = await client.send(request);
  checkEqual(reply.status, status, `status of ${what}`);
  if (status === 401) {
    checkEqual(reply.headers.get("www-authenticate"), INVALID_TOKEN, `WWW-Authenticate of ${what}`);
  }
  if (status >= 400) checkErrorBody(reply);
  return reply;
}

function withKey(key: string, request: RequestSpec): RequestSpec {
  return { ...request, headers: { ...request.headers, Authorization: `Bearer ${key}` } };
}

/** Makes a list at `path` and a key of `access` to it, as the suite's write token may. */
async function listWithKey(client: Client, path: string, access: string): Promise<MadeKey> {
  const put = { method: "PUT", path, headers: { "Content-Type": "application/json" }, body: '{"title":"Shared"}' };
  await expectStatus(client, put, 201, `PUT ${path}`);
  const made = await expectStatus(client, jsonPost(`${path}/keys`, { access }), 201, "POST of a key");
  return parseJson(made, "the key") as MadeKey;
}

/** The cases, for a target with tokens set that serves many lists. */
export function listKeyCases(options: ConformanceOptions): StatefulCase[] {
  if (options.tokens === undefined || options.listPath === undefined) return [];
  return [
    {
      name: "a list key opens its own list as its access says, and nothing else, until it is revoked or its list deleted",
      core: true,
      async run(client) {
        const path = `/lists/shared-${crypto.randomUUID().slice(0, 8)}`;
        const other = `/lists/other-${crypto.randomUUID().slice(0, 8)}`;
        const put = (at: string): RequestSpec => ({
          method: "PUT",
          path: at,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ title: "Shared" }),
        });
        await expectStatus(client, put(path), 201, `PUT ${path}`);
        await expectStatus(client, put(other), 201, `PUT ${other}`);
        try {
          const made = await expectStatus(
            client,
            jsonPost(`${path}/keys`, { access: "read", label: "Reader" }),
            201,
            "POST of a read key",
          );
          const read = parseJson(made, "the read key") as MadeKey;
          checkEqual(Object.keys(read), ["id", "access", "label", "expires", "key"], "the new key's fields, in order");
          checkEqual([read.access, read.label, read.expires], ["read", "Reader", null], "the new key");
          check(
            /^[!#-'*+.0-9A-Z^-z|~-]{22,}$/.test(read.key),
            `a key must be token68 of at least 128 bits: ${read.key}`,
          );
          check(
            made.headers.get("location")?.endsWith(`${path}/keys/${read.id}`) === true,
            `Location must name the key, got ${made.headers.get("location")}`,
          );
          const write = parseJson(
            await expectStatus(client, jsonPost(`${path}/keys`, { access: "write" }), 201, "POST of a write key"),
            "the write key",
          ) as MadeKey;
          const listed = await expectStatus(client, { method: "GET", path: `${path}/keys` }, 200, "GET of the keys");
          checkEqual(
            JSON.parse(listed.text),
            [
              { id: read.id, access: "read", label: "Reader", expires: null },
              { id: write.id, access: "write", label: "", expires: null },
            ],
            "the keys, oldest first, without the keys themselves",
          );
          const added = { title: "Added with a key", completed: false };
          await expectStatus(
            client,
            withKey(read.key, { method: "GET", path: `${path}/tasks` }),
            200,
            "a read key's GET",
          );
          const stream = await subscribe(client, "", { Authorization: `Bearer ${read.key}` }, `${path}/tasks/events`);
          stream.close();
          await expectStatus(client, withKey(read.key, jsonPost(`${path}/tasks`, added)), 403, "a read key's POST");
          await expectStatus(client, withKey(write.key, jsonPost(`${path}/tasks`, added)), 200, "a write key's POST");
          await expectStatus(
            client,
            withKey(write.key, { method: "GET", path: `${path}/keys` }),
            403,
            "a key's GET of keys",
          );
          await expectStatus(client, withKey(write.key, { method: "DELETE", path }), 403, "a key's DELETE of its list");
          for (const elsewhere of [`${other}/tasks`, "/lists", `${path}x/tasks`]) {
            await expectStatus(
              client,
              withKey(write.key, { method: "GET", path: elsewhere }),
              401,
              `GET ${elsewhere} with a key`,
            );
          }
          await expectStatus(
            client,
            { method: "DELETE", path: `${path}/keys/${read.id}` },
            204,
            "DELETE of the read key",
          );
          await expectStatus(client, { method: "DELETE", path: `${path}/keys/${read.id}` }, 404, "DELETE of it again");
          await expectStatus(
            client,
            withKey(read.key, { method: "GET", path: `${path}/tasks` }),
            401,
            "a revoked key's GET",
          );
          await expectStatus(client, { method: "DELETE", path }, 204, `DELETE ${path}`);
          await expectStatus(
            client,
            withKey(write.key, { method: "GET", path: `${path}/tasks` }),
            401,
            "a deleted list's key",
          );
          await expectStatus(client, { method: "GET", path: `${path}/keys` }, 410, "GET of a deleted list's keys");
          await expectStatus(client, put(path), 201, `PUT ${path} again`);
          await expectStatus(
            client,
            withKey(write.key, { method: "GET", path: `${path}/tasks` }),
            401,
            "a key of the list before",
          );
        } finally {
          await client.send({ method: "DELETE", path });
          await client.send({ method: "DELETE", path: other });
        }
      },
    },
    {
      name: "a subscription opened with a list key gets revoked and ends once the key is revoked, over SSE and WebSocket",
      core: true,
      async run(client) {
        const path = `/lists/revoked-${crypto.randomUUID().slice(0, 8)}`;
        try {
          const { id, key } = await listWithKey(client, path, "read");
          const events = `${path}/tasks/events`;
          const stream = await subscribe(client, "", { Authorization: `Bearer ${key}` }, events);
          const socket = options.sockets === true ? new SocketReader(client.socket(events, key)) : undefined;
          try {
            await socket?.opened();
            // The socket is let in before its first message, so a task shows it follows the list.
            const task = { title: "Before the revocation", completed: false };
            await expectStatus(client, withKey(key, jsonPost(`${path}/tasks`, task)), 403, "the read key's POST");
            await expectStatus(client, jsonPost(`${path}/tasks`, task), 200, "a POST to the shared list");
            const [added] = await stream.take(1, "the shared list's task");
            checkEqual(added?.event, "task", "the event of the task added");
            await socket?.take(1, "the shared list's task on the WebSocket");
            await expectStatus(client, { method: "DELETE", path: `${path}/keys/${id}` }, 204, "DELETE of the key");
            const [revoked] = await stream.take(1, "the subscription after its key was revoked");
            checkEqual(revoked?.raw, "event: revoked\ndata: {}", "the event of a revoked key");
            await checkEnds(stream, "the event stream of a revoked key");
            if (socket !== undefined) {
              const [message] = await socket.take(1, "the WebSocket after its key was revoked");
              checkEqual(message, '{"event":"revoked","data":{}}', "the message of a revoked key");
              await checkEnds(socket, "the WebSocket of a revoked key");
            }
          } finally {
            stream.close();
            socket?.close();
          }
        } finally {
          await client.send({ method: "DELETE", path });
        }
      },
    },
  ];
}
