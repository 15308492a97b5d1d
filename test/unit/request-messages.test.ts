// What a 400 says for the request it answers: a PATCH's own empty-body message, titles that are not
// well-formed Unicode on every write that takes one, and cursors named as what they count.
import { describe, expect, test } from "vitest";
import { appFrom, expectJsonError, expectRefused } from "./helpers.ts";

const UNPAIRED = "title must be well-formed Unicode: remove the unpaired surrogate";
const MERGE_PATCH = { "Content-Type": "application/merge-patch+json" };

describe("a PATCH", () => {
  test.each(["", " \r\n\t"])(
    "with an empty body (%j) asks for title, completed or both, not for both",
    async (body) => {
      const app = appFrom();
      await expectRefused(
        app,
        "/tasks",
        () => app.request("/tasks/1", { method: "PATCH", headers: MERGE_PATCH, body }),
        400,
        "Request body is empty: send a JSON object with title, completed or both",
      );
    },
  );

  test("with a body that is not an object asks for title, completed or both", async () => {
    const app = appFrom();
    await expectRefused(
      app,
      "/tasks",
      () => app.request("/tasks/1", { method: "PATCH", headers: MERGE_PATCH, body: "[]" }),
      400,
      "Request body must be a JSON object with title, completed or both",
    );
  });
});

describe.each([
  {
    method: "PUT",
    body: (title: string) => ({ title, completed: true }),
    headers: { "Content-Type": "application/json" },
  },
  { method: "PATCH", body: (title: string) => ({ title }), headers: MERGE_PATCH },
])("a $method", ({ method, body, headers }) => {
  test.each(["\ud800", "before \udc00 after", "Ends with \ud83d", "\udc00\ud800"])(
    "of a title with an unpaired surrogate (%j, sent as its JSON escape) returns 400 naming title and changes nothing",
    async (title) => {
      const app = appFrom();
      await expectRefused(
        app,
        "/tasks",
        () => app.request("/tasks/1", { method, headers, body: JSON.stringify(body(title)) }),
        400,
        UNPAIRED,
      );
    },
  );

  test("of a well-formed title with a surrogate pair, escaped or not, applies it", async () => {
    const app = appFrom();
    for (const text of [
      JSON.stringify(body("Ship 🚀")),
      JSON.stringify(body("Ship 🚀")).replace("🚀", "\\ud83d\\ude80"),
    ]) {
      const res = await app.request("/tasks/1", { method, headers, body: text });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { title: string }).title).toBe("Ship 🚀");
    }
  });
});

describe("a malformed cursor", () => {
  test("on GET /tasks?after=N is a task id", async () => {
    await expectJsonError(
      await appFrom().request("/tasks?after=x"),
      400,
      "after must be a whole number of at most 15 digits: the id of the last task you have",
    );
  });

  test.each([
    { query: "?after=x", headers: {}, name: "after" },
    { query: "", headers: { "Last-Event-ID": "x" }, name: "Last-Event-ID" },
    { query: "?after=x", headers: { "Last-Event-ID": "1" }, name: "after" },
    { query: "?after=1", headers: { "Last-Event-ID": "x" }, name: "Last-Event-ID" },
  ])("on /tasks/events$query with $headers is a change number, named $name", async ({ query, headers, name }) => {
    for (const method of ["GET", "HEAD"]) {
      const res = await appFrom().request(`/tasks/events${query}`, { method, headers });
      if (method === "HEAD") {
        expect(res.status).toBe(400);
        continue;
      }
      await expectJsonError(
        res,
        400,
        `${name} must be a whole number of at most 15 digits: the change number of the last event you have`,
      );
    }
  });
});
