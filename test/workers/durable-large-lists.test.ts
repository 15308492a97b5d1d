import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig, WORKERS_PLATFORM } from "../../src/config.ts";
import { DurableLists, MAX_COPY_BYTES } from "../../src/store/durable-object/durable-lists.ts";
import { listObjects, madeList } from "./named-lists.ts";

const LISTS = 10;
const TASKS = 16;
/** A title of about 1 MiB: sixteen of them make a list of the default MAX_LIST_BYTES. */
const TITLE = "x".repeat(1024 * 1024 - 64);

describe("an isolate that reads many large lists", () => {
  test("reads ten lists of 16 MiB in turn, again and again, never failing, its copies within their bound", async () => {
    const names = Array.from({ length: LISTS }, (_, at) => `large-${at}`);
    for (const name of names) {
      await madeList(name);
      // Written straight into the object's tables: sixteen appends of 1 MiB through RPC would take longer.
      await runInDurableObject(listObjects().getByName(name), (_instance, state) => {
        const sql = state.storage.sql;
        for (let id = 1; id <= TASKS; id++) {
          sql.exec(
            "INSERT INTO tasks (list, id, title_json, completed, created, changed) VALUES (?, ?, ?, 0, ?, ?)",
            name,
            id,
            JSON.stringify(TITLE),
            id,
            id,
          );
        }
        sql.exec("UPDATE lists SET change_number = ?, highest_id = ? WHERE name = ?", TASKS, TASKS, name);
      });
      await evictDurableObject(listObjects().getByName(name));
    }
    if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
    const lists = new DurableLists(listObjects(), env.TASK_LISTS);
    const app = createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off" }) });
    for (let round = 0; round < 3; round++) {
      for (const name of names) {
        const res = await app.request(`/lists/${name}/tasks`);
        expect(res.status).toBe(200);
        const bytes = (await res.arrayBuffer()).byteLength;
        expect(bytes).toBeGreaterThan(TASKS * TITLE.length);
        expect(lists.copyBytes).toBeLessThanOrEqual(MAX_COPY_BYTES);
        expect(lists.copied.at(-1)).toBe(name);
        // The object holds its list while awake; the test lets it go, as Cloudflare would an idle one.
        await evictDurableObject(listObjects().getByName(name));
      }
    }
  });
});

describe("a title as large as MAX_BODY_BYTES allows on Workers", () => {
  test("is stored by the object and read back exactly, past Latin-1, after a POST, a PATCH and the object's eviction", async () => {
    const maxBody = WORKERS_PLATFORM.maxBodyBytes;
    // The body is the title's JSON and 30 bytes around it; "€" takes 3 bytes in UTF-8.
    const title = `${"a".repeat(maxBody - 33)}€`;
    const body = JSON.stringify({ title, completed: false });
    expect(new TextEncoder().encode(body).byteLength).toBe(maxBody);
    const name = "one-large-title";
    await madeList(name);
    if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
    const config = parseAppConfig({ LOG_LEVEL: "off", MAX_BODY_BYTES: String(maxBody) }, WORKERS_PLATFORM);
    const app = createApp({ lists: new DurableLists(listObjects(), env.TASK_LISTS), config });
    const added = await app.request(`/lists/${name}/tasks`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    expect(added.status).toBe(200);
    const { id } = (await added.json()) as { id: number };
    const retitled = `€${title.slice(1)}`;
    const edited = await app.request(`/lists/${name}/tasks/${id}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/merge-patch+json" },
      body: JSON.stringify({ title: retitled }),
    });
    expect(edited.status).toBe(200);
    await evictDurableObject(listObjects().getByName(name));
    const read = await app.request(`/lists/${name}/tasks/${id}`);
    expect(await read.text()).toBe(JSON.stringify({ id, title: retitled, completed: false }));
  });
});
