import { describe, expect, test } from "vitest";
import type { TaskApp } from "../../src/app.ts";
import { appFrom, ENTRY_POINTS, expectRefused, paddedTaskBody, postBytes, readTasks, utf8 } from "./helpers.ts";

const MIB = 1024 * 1024;

/** Sends a streamed body, which carries no Content-Length. */
async function postStream(
  app: TaskApp,
  path: string,
  body: ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.request(new Request(`http://localhost${path}`, { method: "POST", body, headers, duplex: "half" }));
}

/** A stream that hands out `chunks` one by one. */
function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

describe.each(ENTRY_POINTS)("request body size on $path", ({ env, path }) => {
  const refusal = (limit: number) => `Request body must be at most ${limit} bytes`;

  test("accepts a body of exactly the default 1 MiB", async () => {
    const app = appFrom(env);
    const res = await postBytes(app, path, paddedTaskBody(MIB), { "Content-Type": "application/json" });
    expect(res.status).toBe(200);
    expect(await readTasks(app, path)).toHaveLength(3);
  });

  test("refuses a body one byte over the default 1 MiB with 413", async () => {
    const app = appFrom(env);
    const body = paddedTaskBody(MIB + 1);
    await expectRefused(app, path, () => postBytes(app, path, body), 413, refusal(MIB));
  });

  test("honours MAX_BODY_BYTES: exactly the limit is accepted, one byte more is refused", async () => {
    const app = appFrom({ ...env, MAX_BODY_BYTES: "64" });
    expect((await postBytes(app, path, paddedTaskBody(64))).status).toBe(200);
    await expectRefused(app, path, () => postBytes(app, path, paddedTaskBody(65)), 413, refusal(64));
  });

  test("refuses a streamed body with no Content-Length once it passes the limit", async () => {
    const app = appFrom({ ...env, MAX_BODY_BYTES: "1000" });
    const chunks = Array.from({ length: 11 }, () => utf8(" ".repeat(100)));
    await expectRefused(app, path, () => postStream(app, path, streamOf(chunks)), 413, refusal(1000));
  });

  test("refuses an endless streamed body instead of reading it all", async () => {
    const app = appFrom(env);
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(chunk);
      },
    });
    await expectRefused(app, path, () => postStream(app, path, endless), 413, refusal(MIB));
    expect(pulled * chunk.byteLength).toBeLessThan(2 * MIB);
  });

  test("accepts a streamed body within the limit split inside a multi-byte character", async () => {
    const app = appFrom(env);
    const bytes = utf8(JSON.stringify({ title: "Split 🚀 across chunks", completed: true }));
    const cut = bytes.indexOf(0xf0) + 2;
    const res = await postStream(app, path, streamOf([bytes.slice(0, cut), bytes.slice(cut)]));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 3, title: "Split 🚀 across chunks", completed: true });
  });

  test("refuses a body over the limit whose Content-Length claims it is small", async () => {
    const app = appFrom(env);
    const body = paddedTaskBody(2 * MIB);
    await expectRefused(app, path, () => postBytes(app, path, body, { "Content-Length": "5" }), 413, refusal(MIB));
  });

  test("refuses a body whose Content-Length says it is over the limit", async () => {
    const app = appFrom({ ...env, MAX_BODY_BYTES: "64" });
    const body = paddedTaskBody(100);
    await expectRefused(app, path, () => postBytes(app, path, body, { "Content-Length": "100" }), 413, refusal(64));
  });
});
