// A GET with a list key on the Durable Objects: a key the list's object found a moment ago is not
// asked for again, and a key revoked, or a list deleted, still opens nothing from then on.
import { env } from "cloudflare:workers";
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { type DirectoryNamespace, DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import type { ListObjectNamespace, ListObjectRpc } from "../../src/store/durable-object/durable-store.ts";
import { listObjects } from "./named-lists.ts";

const READ = "read-token-0123456789";
const WRITE = "write-token-0123456789";
const config = parseAppConfig({ LOG_LEVEL: "error", READ_TOKENS: READ, WRITE_TOKENS: WRITE });
const writer = { Authorization: `Bearer ${WRITE}`, "Content-Type": "application/json" };

/** An app over the bindings, as one isolate's Worker, with the methods it calls on list objects, in order. */
function isolate() {
  const calls: string[] = [];
  const lists: ListObjectNamespace = {
    getByName: (name) => {
      const stub = listObjects().getByName(name) as unknown as Record<string, unknown>;
      return new Proxy(stub, {
        get(target, property) {
          if (typeof property !== "string" || property === "then") return target[property as string];
          return (...args: unknown[]) => {
            calls.push(property);
            return (target as Record<string, (...a: unknown[]) => unknown>)[property]?.(...args);
          };
        },
      }) as unknown as ListObjectRpc;
    },
  };
  const directory: DirectoryNamespace = {
    getByName: (name) => {
      if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
      return env.TASK_LISTS.getByName(name);
    },
  };
  return { app: createApp({ lists: new DurableLists(lists, directory), config }), calls };
}

type App = ReturnType<typeof isolate>["app"];

/** Creates list `name` and a read key of it through `app`: the key, and its id. */
async function listWithKey(app: App, name: string): Promise<{ key: string; id: string }> {
  const put = await app.request(`/lists/${name}`, { method: "PUT", body: '{"title":"Keyed"}', headers: writer });
  expect(put.status).toBe(201);
  const made = await app.request(`/lists/${name}/keys`, { method: "POST", body: '{"access":"read"}', headers: writer });
  expect(made.status).toBe(201);
  return (await made.json()) as { key: string; id: string };
}

const get = (app: App, name: string, key: string) =>
  app.request(`/lists/${name}/tasks`, { headers: { Authorization: `Bearer ${key}` } });

test("a GET with a key found a moment ago is one call to the list's object: its read", async () => {
  const { app, calls } = isolate();
  const { key } = await listWithKey(app, "found-key");
  expect((await get(app, "found-key", key)).status).toBe(200);
  calls.length = 0;
  expect((await get(app, "found-key", key)).status).toBe(200);
  expect(calls).toEqual(["changes"]);
});

test("a key revoked in this isolate opens nothing from the revocation's answer on", async () => {
  const { app } = isolate();
  const { key, id } = await listWithKey(app, "revoked-here");
  expect((await get(app, "revoked-here", key)).status).toBe(200);
  const revoked = await app.request(`/lists/revoked-here/keys/${id}`, { method: "DELETE", headers: writer });
  expect(revoked.status).toBe(204);
  expect((await get(app, "revoked-here", key)).status).toBe(401);
});

test("a list deleted and made again in this isolate: its old key opens nothing", async () => {
  const { app } = isolate();
  const { key } = await listWithKey(app, "made-again");
  expect((await get(app, "made-again", key)).status).toBe(200);
  expect((await app.request("/lists/made-again", { method: "DELETE", headers: writer })).status).toBe(204);
  expect((await get(app, "made-again", key)).status).toBe(401);
  const again = await app.request("/lists/made-again", { method: "PUT", body: '{"title":"Again"}', headers: writer });
  expect(again.status).toBe(201);
  expect((await get(app, "made-again", key)).status).toBe(401);
});

test("a key revoked in another isolate stops opening the list in this one", async () => {
  const [here, there] = [isolate().app, isolate().app];
  const { key, id } = await listWithKey(there, "revoked-there");
  expect((await get(here, "revoked-there", key)).status).toBe(200);
  const revoked = await there.request(`/lists/revoked-there/keys/${id}`, { method: "DELETE", headers: writer });
  expect(revoked.status).toBe(204);
  const deadline = Date.now() + 30_000;
  let status = (await get(here, "revoked-there", key)).status;
  while (status === 200 && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 50));
    status = (await get(here, "revoked-there", key)).status;
  }
  expect(status).toBe(401);
});
