// The lists' own rules through app.request, for any store of many lists: names, titles, /lists,
// PUT, PATCH, the default list and MAX_LISTS.
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { type EnvRecord, parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import type { TaskLists } from "../../src/engine/task-store.ts";
import {
  LIST_KEY_REUSED,
  LIST_TITLE,
  LISTS_NOT_SUPPORTED,
  NOT_FOUND,
  NOT_PATCH_TYPE,
  STALE_LIST,
  TITLE_NOT_WELL_FORMED,
  tooManyLists,
} from "../../src/messages.ts";
import { expectJsonError } from "./helpers.ts";
import { addTask, createList, sendJson } from "./list-requests.ts";

/** Registers the lists' own rules, each test on an app over new lists from `newLists`. */
export function describeListRules(newLists: () => TaskLists | Promise<TaskLists>): void {
  const listsApp = async (env: EnvRecord = {}) =>
    createApp({ lists: await newLists(), config: parseAppConfig({ LOG_LEVEL: "off", ...env }) });

  describe("/lists", () => {
    test("holds the default list alone at first, with an ETag that answers 304", async () => {
      const app = await listsApp();
      const res = await app.request("/lists");
      expect(res.status).toBe(200);
      expect(res.headers.get("Cache-Control")).toBe("no-cache");
      expect(await res.text()).toBe('[{"name":"default","title":"Tasks"}]');
      const etag = res.headers.get("ETag") ?? "";
      const again = await app.request("/lists", { headers: { "If-None-Match": etag } });
      expect(again.status).toBe(304);
      expect((await app.request("/lists", { method: "HEAD" })).headers.get("ETag")).toBe(etag);
    });

    test("POST creates an empty list with a random name of 26 characters: 201, Location under BASE_PATH", async () => {
      const app = await listsApp({ BASE_PATH: "/api" });
      const names = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const res = await sendJson(app, "POST", "/api/lists", { title: `Chores ${i}`, ignored: 1 });
        expect(res.status).toBe(201);
        const list = (await res.json()) as { name: string; title: string };
        expect(Object.keys(list)).toEqual(["name", "title"]);
        expect(list.name).toMatch(/^[a-z2-7]{26}$/);
        expect(list.title).toBe(`Chores ${i}`);
        expect(res.headers.get("Location")).toBe(`/api/lists/${list.name}`);
        names.add(list.name);
        expect(await (await app.request(`/api/lists/${list.name}/tasks`)).text()).toBe("[]");
      }
      expect(names.size).toBe(5);
      const listed = (await (await app.request("/api/lists")).json()) as { name: string }[];
      expect(listed.map((list) => list.name)).toEqual(["default", ...names]);
    });

    test("POST with an Idempotency-Key creates once: a replay is 201 with the same list, another title 422", async () => {
      const app = await listsApp();
      const headers = { "Idempotency-Key": "list-key-1" };
      const first = await sendJson(app, "POST", "/lists", { title: "Once" }, headers);
      const replay = await sendJson(app, "POST", "/lists", { title: "Once" }, headers);
      expect(replay.status).toBe(201);
      expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
      expect(replay.headers.get("Location")).toBe(first.headers.get("Location"));
      expect(await replay.text()).toBe(await first.text());
      await expectJsonError(await sendJson(app, "POST", "/lists", { title: "Twice" }, headers), 422, LIST_KEY_REUSED);
      expect(((await (await app.request("/lists")).json()) as unknown[]).length).toBe(2);
    });

    test("its ETag changes when a list is created, retitled or deleted, and not when tasks change", async () => {
      const app = await listsApp();
      const etag = async () => (await app.request("/lists")).headers.get("ETag");
      const seen = [await etag()];
      await createList(app, "groceries");
      seen.push(await etag());
      await addTask(app, "groceries");
      await addTask(app, "default");
      expect(await etag()).toBe(seen.at(-1));
      await sendJson(app, "PATCH", "/lists/groceries", { title: "Food" });
      seen.push(await etag());
      await sendJson(app, "PATCH", "/lists/groceries", { title: "Food" });
      expect(await etag()).toBe(seen.at(-1));
      await app.request("/lists/groceries", { method: "DELETE" });
      seen.push(await etag());
      expect(new Set(seen).size).toBe(4);
    });

    test("answers any other method 405 with Allow: GET, HEAD, POST", async () => {
      const res = await (await listsApp()).request("/lists", { method: "DELETE" });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("GET, HEAD, POST");
    });
  });

  describe("a list's name", () => {
    test.each(["a", "a-b", "0", "x".repeat(63), "default-2"])(
      "%s is a name: never created, it is 404",
      async (name) => {
        const app = await listsApp();
        for (const path of [`/lists/${name}`, `/lists/${name}/tasks`, `/lists/${name}/tasks/1`, `/lists/${name}/`]) {
          await expectJsonError(await app.request(path), 404, NOT_FOUND);
        }
        await expectJsonError(await app.request(`/lists/${name}/tasks/events`), 404, NOT_FOUND);
        await expectJsonError(
          await sendJson(app, "POST", `/lists/${name}/tasks`, { title: "x", completed: false }),
          404,
          NOT_FOUND,
        );
        await expectJsonError(await app.request(`/lists/${name}/tasks/1`, { method: "DELETE" }), 404, NOT_FOUND);
      },
    );

    test.each(["-a", "a-", "A", "a_b", "a.b", "x".repeat(64), "%C3%A9"])(
      "%s is no name: every path under it is 404",
      async (name) => {
        const app = await listsApp();
        for (const path of [`/lists/${name}`, `/lists/${name}/tasks`, `/lists/${name}/`]) {
          await expectJsonError(await app.request(path), 404, NOT_FOUND);
        }
        await expectJsonError(await sendJson(app, "PUT", `/lists/${name}`, { title: "x" }), 404, NOT_FOUND);
      },
    );
  });

  describe("a list's title", () => {
    test.each([
      ["missing", {}],
      ["null", { title: null }],
      ["a number", { title: 5 }],
      ["201 characters", { title: "x".repeat(201) }],
      ["201 emoji", { title: "🦆".repeat(201) }],
    ])("%s is 400 naming title, on POST, PUT and PATCH, and nothing changes", async (_what, body) => {
      const app = await listsApp();
      await createList(app, "kept", "Kept");
      await expectJsonError(await sendJson(app, "POST", "/lists", body), 400, LIST_TITLE);
      await expectJsonError(await sendJson(app, "PUT", "/lists/kept", body), 400, LIST_TITLE);
      await expectJsonError(await sendJson(app, "PUT", "/lists/new", body), 400, LIST_TITLE);
      if (Object.hasOwn(body, "title"))
        await expectJsonError(await sendJson(app, "PATCH", "/lists/kept", body), 400, LIST_TITLE);
      expect(await (await app.request("/lists")).text()).toBe(
        '[{"name":"default","title":"Tasks"},{"name":"kept","title":"Kept"}]',
      );
    });

    test("of 200 characters, emoji counted once each, is taken; an unpaired surrogate is 400", async () => {
      const app = await listsApp();
      expect((await sendJson(app, "PUT", "/lists/long", { title: "🦆".repeat(200) })).status).toBe(201);
      expect((await sendJson(app, "PUT", "/lists/plain", { title: "x".repeat(200) })).status).toBe(201);
      const unpaired = await app.request("/lists", {
        method: "POST",
        body: '{"title":"\\ud800"}',
        headers: { "Content-Type": "application/json" },
      });
      await expectJsonError(unpaired, 400, TITLE_NOT_WELL_FORMED);
    });
  });

  describe("PUT /lists/{name}", () => {
    test("creates the list (201, Location, ETag), then replaces its title (200)", async () => {
      const app = await listsApp();
      const created = await sendJson(app, "PUT", "/lists/work", { title: "Work" });
      expect(created.status).toBe(201);
      expect(created.headers.get("Location")).toBe("/lists/work");
      expect(await created.text()).toBe('{"name":"work","title":"Work"}');
      const read = await app.request("/lists/work");
      expect(read.headers.get("ETag")).toBe(created.headers.get("ETag"));
      expect(
        (await app.request("/lists/work", { headers: { "If-None-Match": read.headers.get("ETag") ?? "" } })).status,
      ).toBe(304);
      const retitled = await sendJson(app, "PUT", "/lists/work", { title: "Job" });
      expect(retitled.status).toBe(200);
      expect(await retitled.text()).toBe('{"name":"work","title":"Job"}');
      expect(retitled.headers.get("ETag")).not.toBe(created.headers.get("ETag"));
    });

    test("If-None-Match: * creates only, and If-Match writes only the version it names", async () => {
      const app = await listsApp();
      const created = await sendJson(app, "PUT", "/lists/once", { title: "Once" }, { "If-None-Match": "*" });
      expect(created.status).toBe(201);
      const etag = created.headers.get("ETag") ?? "";
      await expectJsonError(
        await sendJson(app, "PUT", "/lists/once", { title: "Again" }, { "If-None-Match": "*" }),
        412,
        STALE_LIST,
      );
      await expectJsonError(
        await sendJson(app, "PUT", "/lists/once", { title: "x" }, { "If-Match": '"other"' }),
        412,
        STALE_LIST,
      );
      await expectJsonError(
        await sendJson(app, "PUT", "/lists/none", { title: "x" }, { "If-Match": "*" }),
        412,
        STALE_LIST,
      );
      expect((await sendJson(app, "PUT", "/lists/once", { title: "Twice" }, { "If-Match": etag })).status).toBe(200);
      await expectJsonError(
        await sendJson(app, "PUT", "/lists/once", { title: "Thrice" }, { "If-Match": etag }),
        412,
        STALE_LIST,
      );
      expect(await (await app.request("/lists/once")).text()).toBe('{"name":"once","title":"Twice"}');
    });

    test("of many at once with If-None-Match: *, exactly one answers 201", async () => {
      const app = await listsApp();
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          sendJson(app, "PUT", "/lists/race", { title: `Racer ${i}` }, { "If-None-Match": "*" }),
        ),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(24);
    });
  });

  describe("PATCH /lists/{name}", () => {
    test("merges title: 200 with the list, {} changes nothing, If-Match must name the list's ETag", async () => {
      const app = await listsApp();
      await createList(app, "home", "Home");
      const etag = (await app.request("/lists/home")).headers.get("ETag") ?? "";
      const patched = await app.request("/lists/home", {
        method: "PATCH",
        body: '{"title":"House","name":"ignored"}',
        headers: { "Content-Type": "application/merge-patch+json", "If-Match": etag },
      });
      expect(patched.status).toBe(200);
      expect(await patched.text()).toBe('{"name":"home","title":"House"}');
      const same = await sendJson(app, "PATCH", "/lists/home", {});
      expect(same.status).toBe(200);
      expect(same.headers.get("ETag")).toBe(patched.headers.get("ETag"));
      await expectJsonError(
        await sendJson(app, "PATCH", "/lists/home", { title: "Old" }, { "If-Match": etag }),
        412,
        STALE_LIST,
      );
    });

    test("refuses a Content-Type other than a merge patch or JSON with 415 and Accept-Patch", async () => {
      const app = await listsApp();
      await createList(app, "typed");
      const res = await app.request("/lists/typed", {
        method: "PATCH",
        body: '{"title":"x"}',
        headers: { "Content-Type": "text/plain" },
      });
      expect(res.headers.get("Accept-Patch")).toBe("application/merge-patch+json");
      await expectJsonError(res, 415, NOT_PATCH_TYPE);
    });
  });

  describe("the default list", () => {
    test("is /tasks under /lists/default too, and cannot be deleted: 405 with Allow: GET, HEAD, PUT, PATCH", async () => {
      const app = await listsApp();
      const added = await sendJson(app, "POST", "/lists/default/tasks", { title: "Both paths", completed: false });
      expect(((await added.json()) as { id: number }).id).toBe(3);
      expect(await (await app.request("/tasks")).text()).toBe(await (await app.request("/lists/default/tasks")).text());
      expect((await app.request("/lists/default/tasks/3")).status).toBe(200);
      for (const method of ["DELETE", "POST"]) {
        const res = await app.request("/lists/default", { method });
        expect(res.status).toBe(405);
        expect(res.headers.get("Allow")).toBe("GET, HEAD, PUT, PATCH");
      }
      expect((await app.request("/tasks")).status).toBe(200);
      await expectJsonError(await app.request("/lists/default/index.php"), 404, NOT_FOUND);
    });

    test("can be retitled", async () => {
      const app = await listsApp();
      expect((await sendJson(app, "PUT", "/lists/default", { title: "Inbox" })).status).toBe(200);
      expect(await (await app.request("/lists")).text()).toBe('[{"name":"default","title":"Inbox"}]');
    });
  });

  test("a creation past MAX_LISTS (the default list counts) answers 507; a deletion makes room", async () => {
    const app = await listsApp({ MAX_LISTS: "2" });
    await createList(app, "first");
    await expectJsonError(await sendJson(app, "PUT", "/lists/second", { title: "x" }), 507, tooManyLists(2));
    await expectJsonError(await sendJson(app, "POST", "/lists", { title: "x" }), 507, tooManyLists(2));
    expect((await app.request("/lists/first", { method: "DELETE" })).status).toBe(204);
    await createList(app, "second");
  });

  test("an app built over one store alone serves its list at /lists/default and answers a creation 501", async () => {
    const app = createApp({ store: new MemoryStore(), config: parseAppConfig({ LOG_LEVEL: "off" }) });
    expect(await (await app.request("/lists")).text()).toBe('[{"name":"default","title":"Tasks"}]');
    expect(await (await app.request("/lists/default")).text()).toBe('{"name":"default","title":"Tasks"}');
    expect((await app.request("/lists/default/tasks")).status).toBe(200);
    await expectJsonError(await sendJson(app, "POST", "/lists", { title: "x" }), 501, LISTS_NOT_SUPPORTED);
    await expectJsonError(await sendJson(app, "PUT", "/lists/other", { title: "x" }), 501, LISTS_NOT_SUPPORTED);
    await expectJsonError(await app.request("/lists/other/tasks"), 404, NOT_FOUND);
  });
}
