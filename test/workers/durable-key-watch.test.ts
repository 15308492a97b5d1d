// An event stream opened with a list key over the Durable Objects waits in its list's object for the
// key's revocation instead of looking the key up on a timer: an idle subscriber costs the object no
// request a second, a revocation still ends its stream, and one that leaves stops its wait.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { type DirectoryNamespace, DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import type { ListObjectNamespace, ListObjectRpc } from "../../src/store/durable-object/list-object-rpc.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { eventually } from "../support/eventually.ts";
import { listObjects } from "./named-lists.ts";

const config = parseAppConfig({ ...CONFIGURED_ENV, LOG_LEVEL: "off" });
const write = { Authorization: `Bearer ${CONFIGURED_OPTIONS.tokens?.write}`, "Content-Type": "application/json" };
const base = `http://example.com${CONFIGURED_ENV.BASE_PATH}`;

/**
 * An app over the list objects whose calls are counted by method; `fail(method)` fails that
 * method's calls under way and to come, as a reset object would, until `heal()`.
 */
function counted() {
  const calls: string[] = [];
  const failing = new Set<string>();
  const underWay: { readonly method: string; readonly reject: (error: unknown) => void }[] = [];
  const reset = () => Object.assign(new Error("The object was reset"), { retryable: true });
  const lists: ListObjectNamespace = {
    getByName: (name) => {
      const stub = listObjects().getByName(name) as unknown as Record<string, (...a: unknown[]) => unknown>;
      return new Proxy(stub, {
        get(target, property) {
          if (typeof property !== "string" || property === "then") return target[property as string];
          return (...args: unknown[]) => {
            calls.push(property);
            if (failing.has(property)) return Promise.reject(reset());
            const answer = Promise.resolve(target[property]?.(...args));
            return new Promise((done, reject) => {
              underWay.push({ method: property, reject });
              answer.then(done, reject);
            });
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
  const app = createApp({ lists: new DurableLists(lists, directory), config });
  const count = (method: string) => calls.filter((call) => call === method).length;
  const fail = (method: string) => {
    failing.add(method);
    for (const call of underWay) if (call.method === method) call.reject(reset());
  };
  return { app, calls, count, fail, heal: () => failing.clear() };
}

/** Makes list `name` and a read key of it, and opens an event stream of it with that key. */
async function keyedStream(app: ReturnType<typeof counted>["app"], name: string) {
  const put = await app.fetch(
    new Request(`${base}/lists/${name}`, { method: "PUT", body: '{"title":"Watched"}', headers: write }),
  );
  expect(put.status).toBe(201);
  const made = await app.fetch(
    new Request(`${base}/lists/${name}/keys`, { method: "POST", body: '{"access":"read"}', headers: write }),
  );
  expect(made.status).toBe(201);
  const { id, key } = (await made.json()) as { id: string; key: string };
  const response = await app.fetch(
    new Request(`${base}/lists/${name}/tasks/events`, { headers: { Authorization: `Bearer ${key}` } }),
  );
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error("An event stream must have a body");
  const seen = { text: "", ended: false };
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.text += new TextDecoder().decode(value);
    }
    seen.ended = true;
  })();
  const revoke = () => app.fetch(new Request(`${base}/lists/${name}/keys/${id}`, { method: "DELETE", headers: write }));
  return { reader, seen, revoke };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** How many callers wait in list `name`'s object. */
const waiters = (name: string) => runInDurableObject(listObjects().getByName(name), (object) => object.waiters());

test("an idle keyed event stream makes no call to its list's object each quarter second; a revocation still ends it", async () => {
  const { app, calls, count } = counted();
  const { seen, revoke } = await keyedStream(app, "idle-keyed");
  await sleep(1000);
  calls.length = 0;
  await sleep(4000);
  // Looked up every 250 ms, the key would be asked for 16 times in these 4 s.
  expect(count("keyOf")).toBeLessThan(2);
  expect(calls.length).toBeLessThan(4);
  expect(seen.ended).toBe(false);
  expect((await revoke()).status).toBe(204);
  await eventually(() => (seen.ended ? true : undefined));
  expect(seen.text).toContain("event: revoked\ndata: {}\n");
  await eventually(async () => ((await waiters("idle-keyed")) === 0 ? true : undefined));
  expect(await waiters("idle-keyed")).toBe(0);
});

test("a keyed event stream that leaves stops its waits in its list's object", async () => {
  const { app } = counted();
  const { reader, seen } = await keyedStream(app, "left-keyed");
  await eventually(() => (seen.text.length > 0 ? true : undefined));
  expect(await waiters("left-keyed")).toBeGreaterThan(0);
  await reader.cancel();
  // Well under the 30 s after which a wait the object still held would end by itself.
  const deadline = Date.now() + 20_000;
  let left = await waiters("left-keyed");
  while (left !== 0 && Date.now() < deadline) {
    await sleep(100);
    left = await waiters("left-keyed");
  }
  expect(left).toBe(0);
});

test("a wait that fails takes no key as revoked, is tried again after a pause, and a revocation missed meanwhile is found", async () => {
  const { app, count, fail, heal } = counted();
  const { seen, revoke } = await keyedStream(app, "failing-keyed");
  await sleep(500);
  fail("nextKeyChange");
  const before = count("nextKeyChange");
  await sleep(3000);
  // Tried again after a pause, not at once: a few calls in 3 s, not thousands.
  expect(count("nextKeyChange") - before).toBeLessThan(8);
  expect(seen.ended).toBe(false);
  expect((await revoke()).status).toBe(204);
  await sleep(500);
  heal();
  await eventually(() => (seen.ended ? true : undefined));
  expect(seen.text).toContain("event: revoked\ndata: {}\n");
});
