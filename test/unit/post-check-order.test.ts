import { describe, test } from "vitest";
import { appFrom, ENTRY_POINTS, expectRefused, postBytes, utf8 } from "./helpers.ts";

const LIMIT = 64;
const oversized = (text: string) => utf8(text.padEnd(LIMIT + 1, " "));

/**
 * Each case breaks one check and every check after it, so the response shows which check runs
 * first. The list is always full, so the last check (507) would answer if nothing else did.
 */
const CASES: readonly {
  name: string;
  body: Uint8Array<ArrayBuffer>;
  contentType?: string;
  status: number;
  message: string;
}[] = [
  {
    name: "413 beats 415",
    body: oversized("not json"),
    contentType: "text/plain",
    status: 413,
    message: `Request body must be at most ${LIMIT} bytes`,
  },
  {
    name: "415 beats 400 for malformed JSON",
    body: utf8("not json"),
    contentType: "text/plain",
    status: 415,
    message: "Content-Type must be application/json",
  },
  {
    name: "415 beats 400 for a missing field",
    body: utf8("{}"),
    contentType: "text/plain",
    status: 415,
    message: "Content-Type must be application/json",
  },
  {
    name: "malformed JSON is reported before anything about its content",
    body: utf8('{"title":5,'),
    status: 400,
    message: "Request body must be valid JSON",
  },
  {
    name: "a non-object is reported before missing fields",
    body: utf8("[]"),
    status: 400,
    message: "Request body must be a JSON object with title and completed",
  },
  {
    name: "a missing completed is reported before a title of the wrong type",
    body: utf8('{"title":5}'),
    status: 400,
    message: "Title or completed status is missing",
  },
  {
    name: "a null title is reported before a completed of the wrong type",
    body: utf8('{"title":null,"completed":"yes"}'),
    status: 400,
    message: "Title or completed status is missing",
  },
  {
    name: "a wrong type is reported before a full list",
    body: utf8('{"title":"Fine","completed":"yes"}'),
    status: 400,
    message: "completed must be a boolean (true or false)",
  },
  {
    name: "a full list is reported for an otherwise valid task",
    body: utf8('{"title":"Fine","completed":true}'),
    status: 507,
    message: "Task list is full: it holds the maximum of 2 tasks",
  },
];

describe.each(ENTRY_POINTS)("the order of the POST checks on $path", ({ env, path }) => {
  test.each(CASES)("$name", async ({ body, contentType, status, message }) => {
    const app = appFrom({ ...env, MAX_BODY_BYTES: String(LIMIT), MAX_TASKS: "2" });
    const headers: Record<string, string> = contentType === undefined ? {} : { "Content-Type": contentType };
    await expectRefused(app, path, () => postBytes(app, path, body, headers), status, message);
  });
});
