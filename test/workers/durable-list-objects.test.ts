import { env } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { type DirectoryNamespace, DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import type { ListObjectNamespace } from "../../src/store/durable-object/list-object-rpc.ts";
import { listObjects } from "./named-lists.ts";

/** The bindings, counting the objects the Worker reaches, by name. */
function counted() {
  const lists = new Map<string, number>();
  const directory = new Map<string, number>();
  const count = (calls: Map<string, number>, name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const listNamespace: ListObjectNamespace = {
    getByName: (name) => {
      count(lists, name);
      return listObjects().getByName(name);
    },
  };
  const directoryNamespace: DirectoryNamespace = {
    getByName: (name) => {
      count(directory, name);
      if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
      return env.TASK_LISTS.getByName(name);
    },
  };
  return { lists, directory, listNamespace, directoryNamespace };
}

function appOver(lists: DurableLists) {
  return createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off" }) });
}

function json(method: string, value: unknown, headers: Record<string, string> = {}): RequestInit {
  const type = method === "PATCH" ? "application/merge-patch+json" : "application/json";
  return { method, body: JSON.stringify(value), headers: { "Content-Type": type, ...headers } };
}

describe("each list in its own Durable Object", () => {
  test("a request to a list reaches that list's object alone, never another list's nor the directory", async () => {
    const setUp = appOver(new DurableLists(listObjects(), counted().directoryNamespace));
    for (const name of ["alone", "neighbour"]) {
      expect((await setUp.request(`/lists/${name}`, json("PUT", { title: name }))).status).toBe(201);
    }
    const calls = counted();
    const app = appOver(new DurableLists(calls.listNamespace, calls.directoryNamespace));
    const added = await app.request("/lists/alone/tasks", json("POST", { title: "Mine", completed: false }));
    expect(added.status).toBe(200);
    const { id } = (await added.json()) as { id: number };
    expect((await app.request("/lists/alone/tasks")).status).toBe(200);
    expect((await app.request(`/lists/alone/tasks/${id}`)).status).toBe(200);
    expect((await app.request(`/lists/alone/tasks/${id}`, json("PATCH", { completed: true }))).status).toBe(200);
    expect((await app.request("/lists/alone")).status).toBe(200);
    const stream = (await app.request("/lists/alone/tasks/events?after=0")).body?.getReader();
    await stream?.read();
    await stream?.cancel();
    expect((await app.request(`/lists/alone/tasks/${id}`, { method: "DELETE" })).status).toBe(204);
    expect([...calls.lists.keys()]).toEqual(["alone"]);
    expect(calls.directory.size).toBe(0);
    // Reading and the lists' own writes reach the directory; a name never made reaches its own object only.
    expect((await app.request("/lists/never-made-here/tasks")).status).toBe(404);
    expect([...calls.lists.keys()]).toEqual(["alone", "never-made-here"]);
    expect(calls.directory.size).toBe(0);
    expect((await app.request("/lists")).status).toBe(200);
    expect([...calls.directory.keys()]).toEqual(["directory"]);
    expect([...calls.lists.keys()]).toEqual(["alone", "never-made-here"]);
  });
});

describe("the copies an isolate keeps of the lists it reads", () => {
  test("stay within their bound, least recently used dropped first, however many lists are read in turn", async () => {
    const bound = 600 * 1024;
    const lists = new DurableLists(listObjects(), counted().directoryNamespace, { maxCopyBytes: bound });
    const app = appOver(lists);
    const title = "x".repeat(50 * 1024);
    const names = ["copy-a", "copy-b", "copy-c", "copy-d", "copy-e"];
    for (const name of names) {
      expect((await app.request(`/lists/${name}`, json("PUT", { title: name }))).status).toBe(201);
      for (let i = 0; i < 5; i++) {
        const res = await app.request(`/lists/${name}/tasks`, json("POST", { title, completed: false }));
        expect(res.status).toBe(200);
      }
    }
    // Each list holds about 250 KiB: two copies fit the bound, three do not. A POST reads no list its
    // copy shows live, so the copies take their lists' bytes from the first round of reads on.
    for (const name of names) expect((await app.request(`/lists/${name}/tasks`)).status).toBe(200);
    for (let round = 0; round < 3; round++) {
      for (const name of names) {
        const res = await app.request(`/lists/${name}/tasks`);
        expect(res.status).toBe(200);
        const tasks = (await res.json()) as { title: string }[];
        expect(tasks).toHaveLength(5);
        expect(tasks.every((task) => task.title === title)).toBe(true);
        expect(lists.copyBytes).toBeLessThanOrEqual(bound);
        expect(lists.copied.at(-1)).toBe(name);
        expect(lists.copied.length).toBeLessThanOrEqual(2);
      }
    }
  });

  test("keep the list read last however large, and drop every other", async () => {
    const lists = new DurableLists(listObjects(), counted().directoryNamespace, { maxCopyBytes: 1024 });
    const app = appOver(lists);
    for (const name of ["small-bound-a", "small-bound-b"]) {
      expect((await app.request(`/lists/${name}`, json("PUT", { title: name }))).status).toBe(201);
      expect(
        (await app.request(`/lists/${name}/tasks`, json("POST", { title: "A task", completed: false }))).status,
      ).toBe(200);
      expect((await app.request(`/lists/${name}/tasks`)).status).toBe(200);
      expect(lists.copied).toEqual([name]);
    }
  });
});
