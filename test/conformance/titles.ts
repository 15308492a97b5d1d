// The contract's rule for every title a request carries: a string of well-formed Unicode. JSON can
// escape half of a surrogate pair (`"\ud800"`), which no UTF-8 text can hold, so POST, PUT and
// PATCH refuse such a title with 400 naming `title`, and store nothing.
import { checkEqual } from "../support/check.ts";
import { jsonPost } from "./client.ts";
import { checkErrorBody, checkUnchanged } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";
import { toTask } from "./task-changes.ts";

/** Titles with an unpaired surrogate; JSON.stringify writes each as its `\uXXXX` escape. */
const UNPAIRED: readonly (readonly [string, string])[] = [
  ["a lone high surrogate", "\ud800"],
  ["a lone low surrogate", "before \udc00 after"],
  ["a high surrogate at the end", "Ends with \ud83d"],
  ["surrogates in the wrong order", "\udc00\ud800"],
];

/** The cases of titles that are not well-formed Unicode. */
export function titleCases(): StatefulCase[] {
  return [
    {
      name: "a title with an unpaired surrogate (JSON's \\ud800 escape) returns 400 naming title on POST, PUT and PATCH, and nothing is stored",
      async run(client) {
        const { id } = await client.create({ title: "Keeps its title", completed: false });
        const list = await client.readList();
        for (const [what, title] of UNPAIRED) {
          for (const [method, request] of [
            ["POST /tasks", jsonPost("/tasks", { title, completed: false })],
            ["POST /index.php", jsonPost("/index.php", { title, completed: true })],
            ["PUT", toTask("PUT", id, { title, completed: true })],
            ["PATCH", toTask("PATCH", id, { title }, { "Content-Type": "application/merge-patch+json" })],
          ] as const) {
            const reply = await client.send(request);
            checkEqual(reply.status, 400, `status of ${method} with a title holding ${what} (body ${reply.text})`);
            checkErrorBody(reply, { naming: "title" });
          }
        }
        await checkUnchanged(client, list.text, list.etag);
      },
    },
  ];
}
