import fc from "fast-check";
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import { utf8Length } from "../../src/http/request-context.ts";

const encoder = new TextEncoder();

/** The same app, answering fixed bodies as text (as on Node) or as bytes (elsewhere). */
const appWith = (textBodies: boolean) =>
  createApp({
    store: new MemoryStore(),
    config: parseAppConfig({ LOG_LEVEL: "off", MAX_BODY_BYTES: "64" }),
    textBodies,
  });

/**
 * What a client can see of a response: its status, its headers but the request id, and its bytes.
 * Each store's lists are told apart by an instance id in the ETag, which is left out too.
 */
async function seen(res: Response) {
  const headers = [...res.headers]
    .filter(([name]) => name !== "x-request-id")
    .map(([name, value]) => [name, name === "etag" ? value.replace(/^"[0-9a-f]+-(\d+)"$/, "$1") : value]);
  return { status: res.status, headers, body: new Uint8Array(await res.arrayBuffer()) };
}

test("answers made with text bodies carry the same bytes and headers as with byte bodies", async () => {
  const post = (body: string) => ({ method: "POST", body, headers: { "Content-Type": "application/json" } });
  const requests: [string, RequestInit][] = [
    ["/tasks", {}],
    ["/tasks", post(JSON.stringify({ title: 'Grüße, 世界 🚀 "q" \\ \u2028', completed: true }))],
    ["/index.php", {}],
    ["/tasks", { method: "HEAD" }],
    ["/tasks", post("{")],
    ["/tasks", post(JSON.stringify({ title: "x".repeat(80), completed: true }))],
    ["/tasks", { method: "DELETE" }],
    ["/nowhere", {}],
    ["/openapi.json", {}],
    ["/", {}],
  ];
  const text = appWith(true);
  const bytes = appWith(false);
  for (const [path, init] of requests) {
    expect(await seen(await text.request(path, init)), `${init.method ?? "GET"} ${path}`).toEqual(
      await seen(await bytes.request(path, init)),
    );
  }
});

test("counts the UTF-8 bytes of any well-formed text as TextEncoder writes them", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), (text) => {
      expect(utf8Length(text)).toBe(encoder.encode(text).byteLength);
    }),
    { numRuns: 2_000 },
  );
  expect(utf8Length(JSON.stringify("\ud800 lone"))).toBe(encoder.encode(JSON.stringify("\ud800 lone")).byteLength);
});
