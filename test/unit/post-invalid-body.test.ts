import { describe, test } from "vitest";
import { appFrom, ENTRY_POINTS, expectRefused, postBytes, postText, utf8 } from "./helpers.ts";

const MISSING = "Title or completed status is missing";
const NOT_AN_OBJECT = "Request body must be a JSON object with title and completed";
const TITLE_NOT_STRING = "title must be a string";
const COMPLETED_NOT_BOOLEAN = "completed must be a boolean (true or false)";

/** Bodies that are refused with 400, and the message each one gets. */
const INVALID_BODIES: readonly { body: string; message: string }[] = [
  { body: "", message: "Request body is empty: send a JSON object with title and completed" },
  { body: " \n\t ", message: "Request body is empty: send a JSON object with title and completed" },
  { body: '{"title":"Unclosed","completed":true', message: "Request body must be valid JSON" },
  { body: "{title:'single quotes',completed:true}", message: "Request body must be valid JSON" },
  { body: '{"title":"Trailing comma","completed":true,}', message: "Request body must be valid JSON" },
  { body: '{"title":"a","completed":true} {"title":"b","completed":true}', message: "Request body must be valid JSON" },
  { body: "undefined", message: "Request body must be valid JSON" },
  { body: '[{"title":"In an array","completed":true}]', message: NOT_AN_OBJECT },
  { body: "[]", message: NOT_AN_OBJECT },
  { body: '"a string"', message: NOT_AN_OBJECT },
  { body: "42", message: NOT_AN_OBJECT },
  { body: "null", message: NOT_AN_OBJECT },
  { body: "true", message: NOT_AN_OBJECT },
  { body: "false", message: NOT_AN_OBJECT },
  { body: "{}", message: MISSING },
  { body: '{"title":"No completed"}', message: MISSING },
  { body: '{"completed":false}', message: MISSING },
  { body: '{"title":null,"completed":true}', message: MISSING },
  { body: '{"title":"Null completed","completed":null}', message: MISSING },
  { body: '{"title":null,"completed":null}', message: MISSING },
  { body: '{"Title":"Wrong case","Completed":true}', message: MISSING },
  { body: '{"task":{"title":"Nested","completed":true}}', message: MISSING },
  { body: '{"title":42,"completed":true}', message: TITLE_NOT_STRING },
  { body: '{"title":true,"completed":true}', message: TITLE_NOT_STRING },
  { body: '{"title":["a"],"completed":true}', message: TITLE_NOT_STRING },
  { body: '{"title":{"text":"a"},"completed":true}', message: TITLE_NOT_STRING },
  { body: '{"title":"String completed","completed":"true"}', message: COMPLETED_NOT_BOOLEAN },
  { body: '{"title":"String false","completed":"false"}', message: COMPLETED_NOT_BOOLEAN },
  { body: '{"title":"Number completed","completed":1}', message: COMPLETED_NOT_BOOLEAN },
  { body: '{"title":"Zero completed","completed":0}', message: COMPLETED_NOT_BOOLEAN },
  { body: '{"title":"Array completed","completed":[]}', message: COMPLETED_NOT_BOOLEAN },
];

describe.each(ENTRY_POINTS)("POST bodies refused with 400 on $path", ({ env, path }) => {
  test.each(INVALID_BODIES)("refuses $body with $message", async ({ body, message }) => {
    const app = appFrom(env);
    await expectRefused(app, path, () => postText(app, path, body), 400, message);
  });

  test("refuses a deeply nested array, well within the size limit, as not an object", async () => {
    const app = appFrom(env);
    const depth = 200_000;
    const body = "[".repeat(depth) + "]".repeat(depth);
    await expectRefused(app, path, () => postText(app, path, body), 400, NOT_AN_OBJECT);
  });

  test.each([
    { kind: "a lone continuation byte", bytes: [0x80] },
    { kind: "an invalid byte 0xff", bytes: [0xff] },
    { kind: "a truncated multi-byte sequence", bytes: [0xe2, 0x82] },
    { kind: "an overlong encoding of '/'", bytes: [0xc0, 0xaf] },
    { kind: "an encoded surrogate", bytes: [0xed, 0xa0, 0x80] },
    { kind: "Latin-1 text", bytes: [0xe9] },
  ])("refuses a title holding $kind, which is not UTF-8", async ({ bytes }) => {
    const app = appFrom(env);
    const body = new Uint8Array([
      ...utf8('{"title":"'),
      ...bytes,
      ...utf8('","completed":true}'),
    ]) as Uint8Array<ArrayBuffer>;
    await expectRefused(
      app,
      path,
      () => postBytes(app, path, body, { "Content-Type": "application/json" }),
      400,
      "Request body must be UTF-8 encoded JSON",
    );
  });

  test("refuses a body that stops midway, as when the client closes the connection, and adds nothing", async () => {
    const app = appFrom(env);
    const send = () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(utf8('{"title":"Cut off'));
          controller.error(new Error("the connection closed"));
        },
      });
      return app.request(path, {
        method: "POST",
        body,
        headers: { "Content-Type": "application/json" },
        duplex: "half",
      } as RequestInit);
    };
    await expectRefused(
      app,
      path,
      send,
      400,
      "Request body ended before it was complete: send the whole body before closing the connection",
    );
  });
});
