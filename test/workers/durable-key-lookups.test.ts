// A request with a list key on the Durable Objects: its key's check brings the request's read of the
// list in the same call to the list's object, and a key revoked, or a list made again, opens nothing.
import { expect, test } from "vitest";
import { createWorkerApp } from "../../src/runtimes/worker-app.ts";
import { countedBindings } from "./named-lists.ts";

const READ = "read-token-0123456789";
const WRITE = "write-token-0123456789";
const writer = { Authorization: `Bearer ${WRITE}`, "Content-Type": "application/json" };

/** One isolate's Worker over the bindings, as worker.ts builds it, with the calls made to list objects, in order. */
async function isolate() {
  const { lists, directory, calls } = countedBindings();
  const fetch = await createWorkerApp(
    { TASK_STORE: "durable", LOG_LEVEL: "error", READ_TOKENS: READ, WRITE_TOKENS: WRITE },
    { bindings: { TASK_LIST: lists, TASK_LISTS: directory }, waitUntil: () => {} },
  );
  const request = async (path: string, init?: RequestInit): Promise<Response> =>
    fetch(new Request(`http://localhost${path}`, init), {});
  return { request, calls };
}

type Send = Awaited<ReturnType<typeof isolate>>["request"];

/** Creates list `name` and a read key of it: the key, and its id. */
async function listWithKey(send: Send, name: string): Promise<{ key: string; id: string }> {
  const put = await send(`/lists/${name}`, { method: "PUT", body: '{"title":"Keyed"}', headers: writer });
  expect(put.status).toBe(201);
  const made = await send(`/lists/${name}/keys`, { method: "POST", body: '{"access":"read"}', headers: writer });
  expect(made.status).toBe(201);
  return (await made.json()) as { key: string; id: string };
}

const get = (send: Send, name: string, key: string) =>
  send(`/lists/${name}/tasks`, { headers: { Authorization: `Bearer ${key}` } });

test("a GET with a list key is one call to the list's object, which checks the key and reads the list", async () => {
  const { request, calls } = await isolate();
  const { key } = await listWithKey(request, "one-call-key");
  const added = await request("/lists/one-call-key/tasks", {
    method: "POST",
    body: '{"title":"Seen","completed":false}',
    headers: writer,
  });
  expect(added.status).toBe(200);
  calls.length = 0;
  const res = await get(request, "one-call-key", key);
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('[{"id":1,"title":"Seen","completed":false}]');
  expect(calls).toEqual(["changes"]);
});

test("a key revoked opens nothing from the revocation's answer on, in this isolate and in another", async () => {
  const here = await isolate();
  const other = await isolate();
  const { key, id } = await listWithKey(here.request, "revoked-key");
  expect((await get(here.request, "revoked-key", key)).status).toBe(200);
  expect((await get(other.request, "revoked-key", key)).status).toBe(200);
  const revoked = await here.request(`/lists/revoked-key/keys/${id}`, { method: "DELETE", headers: writer });
  expect(revoked.status).toBe(204);
  expect((await get(here.request, "revoked-key", key)).status).toBe(401);
  expect((await get(other.request, "revoked-key", key)).status).toBe(401);
});

test("a key of a list deleted and made again under its name opens nothing of the new list, in another isolate either", async () => {
  const here = await isolate();
  const other = await isolate();
  const { key } = await listWithKey(here.request, "made-again");
  expect((await get(other.request, "made-again", key)).status).toBe(200);
  expect((await here.request("/lists/made-again", { method: "DELETE", headers: writer })).status).toBe(204);
  expect(
    (await here.request("/lists/made-again", { method: "PUT", body: '{"title":"New"}', headers: writer })).status,
  ).toBe(201);
  const res = await get(other.request, "made-again", key);
  expect(res.status).toBe(401);
  expect(await res.text()).not.toContain("New");
});
