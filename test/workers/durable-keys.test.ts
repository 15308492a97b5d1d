// List keys on Workers with the Durable Objects: the contract's case through an app over every list's
// object, and each key kept, as a hash, in its own list's object alone.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { DIRECTORY_OBJECT, DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import { storageConnection } from "../../src/store/durable-object/object-storage.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { listKeyCases } from "../conformance/list-keys.ts";
import { listObjects } from "./named-lists.ts";

const directoryObjects = () => {
  if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
  return env.TASK_LISTS;
};
const config = parseAppConfig({ ...CONFIGURED_ENV, LOG_LEVEL: "off" });
const app = createApp({ lists: new DurableLists(listObjects(), directoryObjects()), config });
const base = `http://example.com${CONFIGURED_ENV.BASE_PATH}`;
const options = { ...CONFIGURED_OPTIONS, listPath: "/lists/conformance", inWorkerd: true };

describeConformance(
  "list keys through an app over the Durable Objects, every setting configured",
  () => ({ baseUrl: base, fetch: async (request) => app.fetch(request) }),
  options,
  listKeyCases(options),
);

test("a list's keys are kept, as hashes, in its own object, and nowhere in the directory's", async () => {
  const write = { Authorization: `Bearer ${CONFIGURED_OPTIONS.tokens?.write}`, "Content-Type": "application/json" };
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
