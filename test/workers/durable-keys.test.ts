// List keys on Workers with the Durable Objects: the contract's case through an app over every list's
// object, and each key kept, as a hash, in its own list's object alone.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { storageConnection } from "../../src/runtimes/durable-objects/object-storage.ts";
import { DIRECTORY_OBJECT, DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { listKeyCases } from "../conformance/list-keys.ts";
import { eventually } from "../support/eventually.ts";
import { listObjects } from "./named-lists.ts";

const directoryObjects = () => {
  if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
  return env.TASK_LISTS;
};
const config = parseAppConfig({ ...CONFIGURED_ENV, LOG_LEVEL: "off" });
const lists = new DurableLists(listObjects(), directoryObjects());
// As the Worker does: its WebSocket subscribers connect to their list's object.
const app = createApp({
  lists,
  config,
  openSocket: (request, cursor, list, keyHash) =>
    lists.openSocket(list, request, cursor, config.maxSubscribers, keyHash),
});
const write = { Authorization: `Bearer ${CONFIGURED_OPTIONS.tokens?.write}`, "Content-Type": "application/json" };
const base = `http://example.com${CONFIGURED_ENV.BASE_PATH}`;
const options = { ...CONFIGURED_OPTIONS, listPath: "/lists/conformance", inWorkerd: true };

describeConformance(
  "list keys through an app over the Durable Objects, every setting configured",
  () => ({ baseUrl: base, fetch: async (request) => app.fetch(request) }),
  options,
  listKeyCases(options),
);

test("a list's keys are kept, as hashes, in its own object, and nowhere in the directory's", async () => {
  const put = await app.fetch(
    new Request(`${base}/lists/kept-keys`, { method: "PUT", body: JSON.stringify({ title: "Kept" }), headers: write }),
  );
  expect(put.status).toBe(201);
  const made = await app.fetch(
    new Request(`${base}/lists/kept-keys/keys`, { method: "POST", body: '{"access":"read"}', headers: write }),
  );
  expect(made.status).toBe(201);
  const { id, key } = (await made.json()) as { id: string; key: string };
  const rows = await runInDurableObject(listObjects().getByName("kept-keys"), (_, state) =>
    storageConnection(state.storage).query("SELECT id, hash FROM access_keys"),
  );
  expect(rows.map((row) => row.id)).toEqual([id]);
  expect(JSON.stringify(rows)).not.toContain(key);
  const kept = await runInDurableObject(directoryObjects().getByName(DIRECTORY_OBJECT), (_, state) =>
    storageConnection(state.storage).query("SELECT name FROM sqlite_master WHERE name = 'access_keys'").length > 0
      ? storageConnection(state.storage).query("SELECT count(*) AS n FROM access_keys")
      : [{ n: 0 }],
  );
  expect(kept).toEqual([{ n: 0 }]);
  const read = await app.fetch(
    new Request(`${base}/lists/kept-keys/tasks`, { headers: { Authorization: `Bearer ${key}` } }),
  );
  expect(read.status).toBe(200);
});

/** Makes list `name` and a read key of it with `expires`, and opens a WebSocket to its events with that key. */
async function socketWithKey(name: string, expires: string | null) {
  const put = await app.fetch(
    new Request(`${base}/lists/${name}`, { method: "PUT", body: '{"title":"Followed"}', headers: write }),
  );
  expect(put.status).toBe(201);
  const body = JSON.stringify({ access: "read", expires });
  const made = await app.fetch(new Request(`${base}/lists/${name}/keys`, { method: "POST", body, headers: write }));
  expect(made.status).toBe(201);
  const { id, key } = (await made.json()) as { id: string; key: string };
  const handshake = {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    Authorization: `Bearer ${key}`,
  };
  const ws = (await app.fetch(new Request(`${base}/lists/${name}/tasks/events`, { headers: handshake }))).webSocket;
  if (ws === null) throw new Error("The upgrade must carry a socket");
  const messages: string[] = [];
  const closed: { code?: number } = {};
  ws.addEventListener("message", (event) => {
    messages.push(String(event.data));
  });
  ws.addEventListener("close", (event) => {
    closed.code = event.code;
  });
  ws.accept();
  return { id, messages, closed };
}

test("a WebSocket its list's object holds for a key gets revoked and closes once the key is revoked", async () => {
  const { id, messages, closed } = await socketWithKey("revoked-socket", null);
  const revoke = await app.fetch(
    new Request(`${base}/lists/revoked-socket/keys/${id}`, { method: "DELETE", headers: write }),
  );
  expect(revoke.status).toBe(204);
  await eventually(() => (closed.code === undefined ? undefined : true));
  expect(messages).toEqual(['{"event":"revoked","data":{}}']);
  expect(closed.code).toBe(1008);
});

test("a WebSocket its list's object holds for a key that expires gets revoked and closes at the expiry", async () => {
  const expires = new Date(Date.now() + 2000).toISOString();
  const { messages, closed } = await socketWithKey("expired-socket", expires);
  expect(messages).toEqual([]);
  await new Promise((done) => setTimeout(done, Math.max(0, Date.parse(expires) - Date.now()) + 50));
  // The object's alarm, at the expiry, revokes the socket; run at once if it has not fired yet.
  await runDurableObjectAlarm(listObjects().getByName("expired-socket"));
  await eventually(() => (closed.code === undefined ? undefined : true));
  expect(messages).toEqual(['{"event":"revoked","data":{}}']);
  expect(closed.code).toBe(1008);
});
