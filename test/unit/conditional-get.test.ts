import { describe, expect, test } from "vitest";
import { appFrom, ENTRY_POINTS, postJson, postText, snapshot } from "./helpers.ts";

describe.each(ENTRY_POINTS)("If-None-Match on $path", ({ env, path }) => {
  const matching: readonly { form: string; header: (etag: string) => string }[] = [
    { form: "the current ETag", header: (etag) => etag },
    { form: "the weak form W/ of the current ETag", header: (etag) => `W/${etag}` },
    { form: "a list that holds the current ETag", header: (etag) => `"stale-1", ${etag} ,W/"stale-2"` },
    { form: "*", header: () => "*" },
  ];

  test.each(matching)("GET with $form returns 304 with no body and the ETag", async ({ header }) => {
    const app = appFrom(env);
    const { etag } = await snapshot(app, path);
    expect(etag).not.toBeNull();
    const res = await app.request(path, { headers: { "If-None-Match": header(etag ?? "") } });
    expect(res.status).toBe(304);
    expect(res.headers.get("ETag")).toBe(etag);
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    expect(await res.text()).toBe("");
  });

  test.each(matching)("HEAD with $form returns 304 with no body and the ETag", async ({ header }) => {
    const app = appFrom(env);
    const { etag } = await snapshot(app, path);
    const res = await app.request(path, { method: "HEAD", headers: { "If-None-Match": header(etag ?? "") } });
    expect(res.status).toBe(304);
    expect(res.headers.get("ETag")).toBe(etag);
    expect(await res.text()).toBe("");
  });

  test("GET with a stale ETag returns 200 with the list", async () => {
    const app = appFrom(env);
    const before = await snapshot(app, path);
    await postJson(app, path, { title: "Changes the list", completed: false });
    const res = await app.request(path, { headers: { "If-None-Match": before.etag ?? "" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).not.toBe(before.etag);
    expect(await res.json()).toHaveLength(3);
  });

  test("GET with an ETag that never matched returns 200", async () => {
    const app = appFrom(env);
    const res = await app.request(path, { headers: { "If-None-Match": '"not-a-version"' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveLength(2);
  });

  test("the ETag changes after each successful POST", async () => {
    const app = appFrom(env);
    const seen = new Set([(await snapshot(app, path)).etag]);
    for (const title of ["One", "Two", "Three"]) {
      await postJson(app, path, { title, completed: false });
      seen.add((await snapshot(app, path)).etag);
    }
    expect(seen.size).toBe(4);
  });

  test("the ETag stays the same after a failed POST", async () => {
    const app = appFrom(env);
    const before = await snapshot(app, path);
    const res = await postText(app, path, "{not json");
    expect(res.status).toBe(400);
    const res2 = await app.request(path, { headers: { "If-None-Match": before.etag ?? "" } });
    expect(res2.status).toBe(304);
  });

  test("two fresh stores give different ETags, so one list's ETag never matches the other", async () => {
    const first = await snapshot(appFrom(env), path);
    const other = appFrom(env);
    const second = await snapshot(other, path);
    expect(second.text).toBe(first.text);
    expect(second.etag).not.toBe(first.etag);
    const res = await other.request(path, { headers: { "If-None-Match": first.etag ?? "" } });
    expect(res.status).toBe(200);
  });
});
