// Checks a version's pages against its whole list: every filter, with and without a limit, from
// the start and from the middle, must give the tasks that fit, byte for byte, and where to go on.
import { expect } from "vitest";
import type { PageQuery } from "../../src/list/list-page.ts";
import type { ListVersion } from "../../src/list/list-version.ts";

const decoder = new TextDecoder();

interface Listed {
  readonly id: number;
  readonly completed: boolean;
  /** The task's JSON as the list serves it. */
  readonly json: string;
}

/** The page `query` asks of `tasks`, as text, and the id of its last task when more fit past it. */
export function expectedPage(tasks: readonly Listed[], query: PageQuery): { text: string; next: number | undefined } {
  const fitting = tasks.filter(
    (task) => task.id > query.after && (query.completed === undefined || task.completed === query.completed),
  );
  const page = fitting.slice(0, query.limit ?? fitting.length);
  const next = fitting.length > page.length ? page.at(-1)?.id : undefined;
  return { text: `[${page.map((task) => task.json).join(",")}]`, next };
}

/** The text of a page's body, its parts joined. */
export function pageText(list: ListVersion, query: PageQuery): { text: string; next: number | undefined } {
  const { body, next } = list.page(query);
  const bytes = new Uint8Array(body.byteLength);
  let offset = 0;
  for (const part of body.parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  if (offset !== body.byteLength) expect(offset, "bytes of the page's parts").toBe(body.byteLength);
  return { text: decoder.decode(bytes), next };
}

/**
 * Checks that every page of `list` (each filter, a few limits, from the start, the middle and the
 * end) is the tasks of its whole list that fit, as that list serves them. The state of each task is
 * read from its parsed JSON here: the list itself must know it without parsing.
 */
export function checkPages(list: ListVersion, limits: readonly number[] = [1, 2, 3, 10_000]): void {
  const tasks: Listed[] = [...list.tasksAfter(0)].map(({ id, json }) => {
    const text = decoder.decode(json);
    return { id, completed: (JSON.parse(text) as { completed: boolean }).completed, json: text };
  });
  const middle = tasks[Math.floor(tasks.length / 2)]?.id ?? 0;
  for (const after of [0, middle, list.lastId]) {
    for (const completed of [undefined, true, false]) {
      for (const limit of [undefined, ...limits]) {
        const query = { after, completed, limit };
        const [page, expected] = [pageText(list, query), expectedPage(tasks, query)];
        // expect() only on a difference: a history checks thousands of pages.
        if (page.text !== expected.text || page.next !== expected.next) {
          expect(page, JSON.stringify(query)).toEqual(expected);
        }
      }
    }
  }
}
