// Titles a task's JSON must carry byte for byte, whatever the encoder: JSON's own escapes,
// control characters, NUL, lone surrogates, characters of every UTF-8 width, and nothing at all.
import { expect } from "vitest";
import { type Task, taskJson } from "../../src/list/task.ts";

/** Titles, each with what makes it hostile. */
export const HOSTILE_TITLES: readonly (readonly [string, string])[] = [
  ["empty", ""],
  ["quotes and backslashes", "\"\\\"\\\\ \\u0041 'single'"],
  ["control characters", "\u0001\b\t\n\f\r\u001f\u007f"],
  ["NUL", "a\u0000b"],
  ["a lone high surrogate", "x\ud800y"],
  ["a lone low surrogate", "\udfffx"],
  ["surrogates in the wrong order", "\udc00\ud800"],
  ["emoji", "😀👩‍👩‍👧 flag 🇫🇷"],
  ["two- and three-byte characters", "é ß ÿ € 中文 \u2028\u2029 \ufeff"],
  ["JSON of its own", '{"id":1,"title":"x","completed":true}'],
  ["SQL quotes", "it's '' ; -- drop"],
];

/** Each hostile title as a task, completed and not, with ids of one and many digits. */
export function hostileTasks(): Task[] {
  return HOSTILE_TITLES.flatMap(([, title], index) => [
    { id: index + 1, title, completed: false },
    { id: 1_000_000_000 + index, title, completed: true },
  ]);
}

/** Checks that each of `rows`, a task's id and the hex of its JSON as a database built it, is taskJson's bytes for one of `tasks`, and that every task has its row. */
export function expectTaskJsonRows(
  rows: readonly { readonly id: unknown; readonly hex: string }[],
  tasks: readonly Task[],
): void {
  expect(rows).toHaveLength(tasks.length);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  for (const row of rows) {
    const task = byId.get(Number(row.id));
    expect(task).toBeDefined();
    if (task === undefined) continue;
    expect(row.hex, JSON.stringify(task)).toBe(Buffer.from(new TextEncoder().encode(taskJson(task))).toString("hex"));
  }
}
