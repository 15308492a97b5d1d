// The contract's "Filters and pages": `completed` and `limit` on GET and HEAD of the list, with
// `after`, the Link to the next page, and the 400 for any other value.
import { check, checkEqual, type Task } from "../support/check.ts";
import { type Client, inList, type ListSnapshot, type Reply } from "./client.ts";
import { checkErrorBody } from "./expect.ts";
import { checkHeadMatchesGet, type StatefulCase } from "./stateful.ts";

const LIST_PATHS = ["/tasks", "/index.php"];
/** completed=true, completed=false, and no filter. */
const FILTERS = [true, false, undefined];
/** The tasks one case adds, so that each state has a few tasks and pages of two have ends to find. */
const ADDED = [true, false, false, true, true, false, true];

/** What a page asks for; only the parameters given go in the query. */
interface Query {
  readonly after?: number | undefined;
  readonly completed?: boolean | undefined;
  readonly limit?: number | undefined;
}

/** The query string of `query`, in the order the service writes a Link's. */
function queryString({ after, completed, limit }: Query): string {
  const parameters = [
    ...(after === undefined ? [] : [`after=${after}`]),
    ...(limit === undefined ? [] : [`limit=${limit}`]),
    ...(completed === undefined ? [] : [`completed=${completed}`]),
  ];
  return parameters.length === 0 ? "" : `?${parameters.join("&")}`;
}

/** The tasks of `tasks` that `query` asks for, and whether more that fit it are left past them. */
function expectedPage(tasks: readonly Task[], query: Query): { page: Task[]; more: boolean } {
  const fitting = tasks.filter(
    (task) => task.id > (query.after ?? 0) && (query.completed === undefined || task.completed === query.completed),
  );
  const page = fitting.slice(0, query.limit ?? fitting.length);
  return { page, more: fitting.length > page.length };
}

/** Checks a 200 page: the list's ETag and headers, the tasks `query` asks for as the list serves them, and its Link. */
function checkPage(client: Client, reply: Reply, list: ListSnapshot, path: string, query: Query): Task[] {
  const what = `GET ${path}${queryString(query)}`;
  checkEqual(reply.status, 200, `status of ${what} (body ${reply.text.slice(0, 200)})`);
  checkEqual(reply.headers.get("content-type"), "application/json", `Content-Type of ${what}`);
  checkEqual(reply.headers.get("cache-control"), "no-cache", `Cache-Control of ${what}`);
  checkEqual(reply.headers.get("etag"), list.etag, `ETag of ${what} (the whole list's)`);
  const { page, more } = expectedPage(list.tasks, query);
  // The list's tasks, byte for byte as it serves them, in list order.
  checkEqual(reply.text, JSON.stringify(page), `body of ${what}`);
  const last = page.at(-1)?.id;
  const next = { ...query, after: last };
  const link = more
    ? `<${client.options.basePath ?? ""}${inList(client.options, path)}${queryString(next)}>; rel="next"`
    : null;
  checkEqual(reply.headers.get("link"), link, `Link of ${what}`);
  return page;
}

/** Reads every page from `path` with `query`, following each Link, and returns the tasks of all of them. */
async function followPages(client: Client, list: ListSnapshot, path: string, query: Query): Promise<Task[]> {
  const tasks: Task[] = [];
  let request = `${client.options.basePath ?? ""}${inList(client.options, path)}${queryString(query)}`;
  let current = query;
  for (let pages = 0; ; pages++) {
    check(pages <= list.tasks.length, `following Link from ${path}${queryString(query)} never ends`);
    const reply = await client.send({ method: "GET", path: request, outsideBasePath: true });
    tasks.push(...checkPage(client, reply, list, path, current));
    const link = reply.headers.get("link");
    if (link === null) return tasks;
    request = link.slice(1, link.indexOf(">"));
    current = { ...current, after: tasks.at(-1)?.id ?? 0 };
  }
}

/** Adds {@link ADDED}'s tasks and returns the list then, and the id before the first of them. */
async function withAddedTasks(client: Client): Promise<{ list: ListSnapshot; base: number }> {
  const base = (await client.readList()).tasks.at(-1)?.id ?? 0;
  for (const [i, completed] of ADDED.entries()) await client.create({ title: `Filtered ${i}`, completed });
  return { list: await client.readList(), base };
}

/** The cases of filters and pages for any target. */
export function filterCases(): StatefulCase[] {
  return [
    {
      name: "completed=true and completed=false answer only the tasks in that state, in list order, alone and with after, with the list's ETag; HEAD the same without a body; If-None-Match 304",
      async run(client) {
        const { list, base } = await withAddedTasks(client);
        for (const path of LIST_PATHS) {
          for (const completed of [true, false]) {
            for (const after of [undefined, base, base + 3, list.tasks.at(-1)?.id ?? 0]) {
              const query = { after, completed };
              const reply = await client.send({ method: "GET", path: `${path}${queryString(query)}` });
              checkPage(client, reply, list, path, query);
            }
            const filtered = `${path}?completed=${completed}`;
            await checkHeadMatchesGet(client, filtered);
            const held = { "If-None-Match": list.etag ?? "" };
            for (const method of ["GET", "HEAD"]) {
              const again = await client.send({ method, path: filtered, headers: held });
              checkEqual([again.status, again.text], [304, ""], `${method} ${filtered} with the list's ETag`);
              checkEqual(again.headers.get("etag"), list.etag, `ETag of the 304 to ${method} ${filtered}`);
            }
          }
        }
      },
    },
    {
      name: 'limit=N answers at most the first N tasks, alone, with after and with completed, and Link: <...?after=LAST&limit=N...>; rel="next" while more remain; following the Links reassembles the list exactly',
      core: true,
      async run(client) {
        const { list, base } = await withAddedTasks(client);
        for (const path of LIST_PATHS) {
          // /index.php is the same list under another path: its pages and Links without a filter show it.
          for (const completed of path === "/tasks" ? FILTERS : [undefined]) {
            const fitting = expectedPage(list.tasks, { after: base, completed }).page.length;
            // A page that ends exactly at the last fitting task has no Link; one short of it does.
            for (const limit of [1, 2, fitting - 1, fitting, 10_000]) {
              const query = { after: base, completed, limit };
              const reply = await client.send({ method: "GET", path: `${path}${queryString(query)}` });
              checkPage(client, reply, list, path, query);
              const head = await client.send({ method: "HEAD", path: `${path}${queryString(query)}` });
              checkEqual([head.status, head.text], [200, ""], `HEAD ${path}${queryString(query)}`);
              checkEqual(head.headers.get("link"), reply.headers.get("link"), "Link of the HEAD");
            }
            for (const query of [
              { after: base, completed, limit: 2 },
              { completed, limit: 25 },
            ]) {
              const tasks = await followPages(client, list, path, query);
              checkEqual(tasks, expectedPage(list.tasks, { ...query, limit: undefined }).page, "the pages' tasks");
            }
          }
        }
        const held = { "If-None-Match": list.etag ?? "" };
        const again = await client.send({ method: "GET", path: "/tasks?limit=1&completed=false", headers: held });
        checkEqual([again.status, again.text], [304, ""], "GET /tasks?limit=1&completed=false with the list's ETag");
        checkEqual(again.headers.get("link"), null, "Link of a 304");
      },
    },
    {
      name: "a completed other than true or false, a limit other than a whole number from 1 to 10000, or either given twice, returns 400 naming it",
      async run(client) {
        const refused: [string, "completed" | "limit"][] = [
          ...["yes", "", "TRUE", "True", "1", "0", "null", "true&completed=true", "true&completed=false"].map(
            (value): [string, "completed"] => [`completed=${value}`, "completed"],
          ),
          ["completed", "completed"],
          ...["0", "10001", "01", "", "-1", "1.0", "1e3", "%2B1", "%201", "abc", "99999", "1&limit=1", "1&limit=2"].map(
            (value): [string, "limit"] => [`limit=${value}`, "limit"],
          ),
          ["limit", "limit"],
          ["completed=true&limit=0", "limit"],
          ["limit=2&completed=no&after=1", "completed"],
        ];
        for (const path of LIST_PATHS) {
          for (const [query, naming] of refused) {
            const reply = await client.send({ method: "GET", path: `${path}?${query}` });
            checkEqual(reply.status, 400, `status of GET ${path}?${query}`);
            checkErrorBody(reply, { naming });
            const head = await client.send({ method: "HEAD", path: `${path}?${query}` });
            checkEqual([head.status, head.text], [400, ""], `HEAD ${path}?${query}`);
          }
        }
      },
    },
  ];
}
