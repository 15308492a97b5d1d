// Titles a task's JSON must carry byte for byte, whatever the encoder: JSON's own escapes,
// control characters, NUL, lone surrogates, characters of every UTF-8 width, and nothing at all.
import type { Task } from "../../src/list/task.ts";

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
