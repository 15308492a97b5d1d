import { describe, expect, test } from "vitest";
import { appFrom, ENTRY_POINTS, expectRefused, postBytes, readTasks, utf8 } from "./helpers.ts";

const TASK = { title: "Typed", completed: false };
const body = () => utf8(JSON.stringify(TASK));

describe.each(ENTRY_POINTS)("POST Content-Type on $path", ({ env, path }) => {
  test.each([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "APPLICATION/JSON",
    "Application/Json; Charset=utf-8",
    "application/merge-patch+json",
    "application/vnd.api+json; ext=bulk",
  ])("accepts %s", async (contentType) => {
    const app = appFrom(env);
    const res = await postBytes(app, path, body(), { "Content-Type": contentType });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 3, ...TASK });
  });

  test("reads a body sent without Content-Type as JSON", async () => {
    const app = appFrom(env);
    const res = await postBytes(app, path, body());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 3, ...TASK });
    expect(await readTasks(app, path)).toHaveLength(3);
  });

  test.each([
    "text/plain",
    "text/plain;charset=UTF-8",
    "text/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/jsonp",
    "application/json-seq",
    "application/+json",
    "application/xml",
    "",
  ])("refuses %j with 415", async (contentType) => {
    const app = appFrom(env);
    await expectRefused(
      app,
      path,
      () => postBytes(app, path, body(), { "Content-Type": contentType }),
      415,
      "Content-Type must be application/json",
    );
  });

  test("refuses a string body, which fetch labels text/plain, with 415", async () => {
    const app = appFrom(env);
    await expectRefused(
      app,
      path,
      () => app.request(path, { method: "POST", body: JSON.stringify(TASK) }),
      415,
      "Content-Type must be application/json",
    );
  });
});
