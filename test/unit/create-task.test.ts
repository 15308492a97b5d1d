import { describe, expect, test } from "vitest";
import {
  appFrom,
  ENTRY_POINTS,
  expectRefused,
  postJson,
  postText,
  readTasks,
  type TaskBody,
  taskText,
} from "./helpers.ts";

describe.each(ENTRY_POINTS)("POST on $path", ({ env, path }) => {
  test("creates the task, returns 200 with it as JSON, and appends it to the list", async () => {
    const app = appFrom(env);
    const before = await readTasks(app, path);
    const res = await postJson(app, path, { title: "Write the tests", completed: false });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const created = (await res.json()) as TaskBody;
    expect(created).toEqual({ id: 3, title: "Write the tests", completed: false });
    expect(await readTasks(app, path)).toEqual([...before, created]);
  });

  test("answers with the keys id, title, completed, in that order", async () => {
    const res = await postText(appFrom(env), path, '{"completed":true,"title":"Keys in order","id":7}');
    expect(await res.text()).toBe(taskText({ id: 3, title: "Keys in order", completed: true }));
  });

  test.each([
    { present: "an empty title", sent: { title: "", completed: true } },
    { present: "completed false", sent: { title: "Not done", completed: false } },
    { present: "both an empty title and completed false", sent: { title: "", completed: false } },
  ])("counts $present as present", async ({ sent }) => {
    const app = appFrom(env);
    const res = await postJson(app, path, sent);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 3, ...sent });
    expect((await readTasks(app, path)).at(-1)).toEqual({ id: 3, ...sent });
  });

  test("drops a client-sent id and every other field", async () => {
    const app = appFrom(env);
    const res = await postText(
      app,
      path,
      '{"id":999,"title":"Only three keys","completed":true,"owner":"me","tags":["a"],"__proto__":{"admin":true},"constructor":1}',
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(taskText({ id: 3, title: "Only three keys", completed: true }));
    expect((await readTasks(app, path)).at(-1)).toEqual({ id: 3, title: "Only three keys", completed: true });
  });

  test("drops an extra field however deeply it nests", async () => {
    const depth = 200_000;
    const extra = "[".repeat(depth) + "]".repeat(depth);
    const res = await postText(appFrom(env), path, `{"title":"Deep extra","completed":false,"extra":${extra}}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(taskText({ id: 3, title: "Deep extra", completed: false }));
  });

  test("ids continue from the last task, whatever id a client sent before", async () => {
    const app = appFrom(env);
    const ids: number[] = [];
    for (const sentId of [100, -1, 3.5, "x"]) {
      const res = await postJson(app, path, { id: sentId, title: `Sent id ${sentId}`, completed: false });
      ids.push(((await res.json()) as TaskBody).id);
    }
    expect(ids).toEqual([3, 4, 5, 6]);
    expect((await readTasks(app, path)).map((task) => task.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  const titles: readonly { kind: string; title: string }[] = [
    { kind: "emoji", title: "Ship it 🚀 with 👩‍👩‍👧‍👦 and 🇳🇱" },
    { kind: "CJK", title: "写测试 テストを書く 테스트 작성" },
    { kind: "combining marks", title: "Cafe\u0301 n\u0303 a\u030a\u0301" },
    { kind: "control characters, quotes and backslashes", title: 'tab\there\nnul\u0000 "q" \\ \u2028\u2029' },
    { kind: "10,000 characters", title: "abcdefghij".repeat(1000) },
    { kind: "10,000 emoji", title: "😀".repeat(10_000) },
  ];

  test.each(titles)("a title with $kind round-trips exactly", async ({ title }) => {
    const app = appFrom(env);
    const res = await postJson(app, path, { title, completed: true });
    expect(res.status).toBe(200);
    const expected = taskText({ id: 3, title, completed: true });
    const text = await res.text();
    expect(text).toBe(expected);
    expect((JSON.parse(text) as TaskBody).title).toBe(title);
    const list = await (await app.request(path)).text();
    expect(list.endsWith(`,${expected}]`)).toBe(true);
    expect((JSON.parse(list) as TaskBody[]).at(-1)?.title).toBe(title);
  });

  test.each([
    { kind: "a lone high surrogate", title: "\ud800" },
    { kind: "a lone low surrogate", title: "before \udc00 after" },
    { kind: "a high surrogate at the end", title: "Ends with \ud83d" },
    { kind: "reversed surrogates", title: "\udc00\ud800" },
  ])("refuses a title with $kind, which is not well-formed Unicode, with 400 naming title", async ({ title }) => {
    const app = appFrom(env);
    // JSON.stringify writes an unpaired surrogate as its \uXXXX escape, as a client's JSON would.
    await expectRefused(
      app,
      path,
      () => postJson(app, path, { title, completed: false }),
      400,
      "title must be well-formed Unicode: remove the unpaired surrogate",
    );
  });

  test("escaped and raw forms of the same title are stored the same", async () => {
    const app = appFrom(env);
    const escaped = await postText(app, path, '{"title":"\\u00e9\\ud83d\\ude80\\u4e2d","completed":false}');
    const raw = await postText(app, path, '{"title":"é🚀中","completed":false}');
    expect(((await escaped.json()) as TaskBody).title).toBe("é🚀中");
    expect(((await raw.json()) as TaskBody).title).toBe("é🚀中");
  });

  test("100 concurrent POSTs get distinct consecutive ids and all appear in the next GET in order", async () => {
    const app = appFrom(env);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => postJson(app, path, { title: `Concurrent ${i}`, completed: i % 2 === 0 })),
    );
    const created: TaskBody[] = [];
    for (const res of responses) {
      expect(res.status).toBe(200);
      created.push((await res.json()) as TaskBody);
    }
    const ids = created.map((task) => task.id).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 100 }, (_, i) => i + 3));
    const list = await readTasks(app, path);
    expect(list.slice(2)).toEqual([...created].sort((a, b) => a.id - b.id));
  });
});
