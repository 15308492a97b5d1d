// A write to a list in a Durable Object that the Worker's copy already shows possible is one call to
// the object, and a write its copy cannot vouch for is still refused before its body is read.
import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import { countedBindings } from "./named-lists.ts";

/** The bindings, with the methods the Worker calls on list objects, in order. */
function counted() {
  const { lists, directory, calls } = countedBindings();
  const app = createApp({ lists: new DurableLists(lists, directory), config: parseAppConfig({ LOG_LEVEL: "error" }) });
  return { app, calls };
}

function json(method: string, value: unknown, headers: Record<string, string> = {}): RequestInit {
  const type = method === "PATCH" ? "application/merge-patch+json" : "application/json";
  return { method, body: JSON.stringify(value), headers: { "Content-Type": type, ...headers } };
}

/** A PATCH whose body never comes: only an answer made before the body is read can end it. */
function bodyless(): RequestInit {
  const body = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
  return { method: "PATCH", body, headers: { "Content-Type": "application/merge-patch+json" } };
}

describe("a write the Worker's copy shows possible", () => {
  test("a PATCH, or a POST to a named list, after a read makes one call to the list's object: the write", async () => {
    const { app, calls } = counted();
    expect((await app.request("/lists/one-call", json("PUT", { title: "One call" }))).status).toBe(201);
    expect((await app.request("/lists/one-call/tasks", json("POST", { title: "A", completed: false }))).status).toBe(
      200,
    );
    expect((await app.request("/lists/one-call/tasks")).status).toBe(200);
    calls.length = 0;
    expect((await app.request("/lists/one-call/tasks/1", json("PATCH", { completed: true }))).status).toBe(200);
    expect(calls).toEqual(["update"]);
    calls.length = 0;
    const renamed = await app.request("/lists/one-call/tasks/1", json("PATCH", { title: "B" }));
    expect(renamed.status).toBe(200);
    expect(calls).toEqual(["update"]);
    calls.length = 0;
    expect((await app.request("/lists/one-call/tasks", json("POST", { title: "C", completed: false }))).status).toBe(
      200,
    );
    expect(calls).toEqual(["append"]);
    // The ETag the last PATCH gave is the task's: a PATCH with it still needs no read.
    calls.length = 0;
    const tag = renamed.headers.get("ETag") ?? "";
    const again = await app.request("/lists/one-call/tasks/1", json("PATCH", { title: "D" }, { "If-Match": tag }));
    expect(again.status).toBe(200);
    expect(calls).toEqual(["update"]);
  });
});

describe("a write the Worker's copy cannot vouch for is refused before its body is read", () => {
  test("a task this isolate deleted, or changed since the If-Match's version, and a list it deleted", async () => {
    const { app } = counted();
    expect((await app.request("/lists/vouch", json("PUT", { title: "Vouch" }))).status).toBe(201);
    for (const title of ["A", "B"]) {
      expect((await app.request("/lists/vouch/tasks", json("POST", { title, completed: false }))).status).toBe(200);
    }
    expect((await app.request("/lists/vouch/tasks")).status).toBe(200);
    expect((await app.request("/lists/vouch/tasks/1", { method: "DELETE" })).status).toBe(204);
    const deleted = await app.request("/lists/vouch/tasks/1", bodyless());
    expect(deleted.status).toBe(410);
    const first = await app.request("/lists/vouch/tasks/2", json("PATCH", { title: "B2" }));
    expect(first.status).toBe(200);
    const stale = first.headers.get("ETag") ?? "";
    expect((await app.request("/lists/vouch/tasks/2", json("PATCH", { title: "B3" }))).status).toBe(200);
    const changed = await app.request("/lists/vouch/tasks/2", { ...bodyless(), headers: { "If-Match": stale } });
    expect(changed.status).toBe(412);
    expect((await app.request("/lists/vouch", { method: "DELETE" })).status).toBe(204);
    expect((await app.request("/lists/vouch/tasks/2", bodyless())).status).toBe(410);
  });
});
