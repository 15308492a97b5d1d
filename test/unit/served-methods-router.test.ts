// The app's router answers as Hono's TrieRouter would, with a list's name read apart from the path
// and the answers for fixed paths kept.
import { TrieRouter } from "hono/router/trie-router";
import { expect, test } from "vitest";
import { ServedMethodsRouter } from "../../src/http/served-methods-router.ts";
import { LIST_PATH_PARAMETER } from "../../src/routes/list-scope.ts";

const ROUTES: [string, string, string][] = [
  ["GET", "/api/tasks", "tasks"],
  ["POST", "/api/tasks", "create"],
  ["GET", "/api/tasks/:id{[1-9][0-9]{0,14}}", "task"],
  ["GET", "/api/lists", "lists"],
  ["GET", "/api/lists/:name{[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?}", "list"],
  ["GET", "/api/lists/:name{[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?}/tasks", "named tasks"],
  ["OPTIONS", "/api/lists/:name{[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?}/tasks", "named preflight"],
  ["GET", "/api/lists/:name{[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?}/tasks", "named tasks, second handler"],
  ["GET", "/api/lists/:name{[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?}/tasks/:id{[1-9][0-9]{0,14}}", "named task"],
];

const REQUESTS: [string, string][] = [
  ["GET", "/api/tasks"],
  ["POST", "/api/tasks"],
  ["GET", "/api/tasks/12"],
  ["GET", "/api/tasks/012"],
  ["GET", "/api/lists"],
  ["GET", "/api/lists/groceries"],
  ["GET", "/api/lists/groceries/tasks"],
  ["GET", "/api/lists/chores/tasks"],
  ["OPTIONS", "/api/lists/groceries/tasks"],
  ["GET", "/api/lists/groceries/tasks/7"],
  ["GET", "/api/lists/groceries/tasks/x"],
  ["GET", "/api/lists/Groceries/tasks"],
  ["GET", "/api/lists/-a/tasks"],
  ["GET", "/api/lists//tasks"],
  ["GET", "/api/lists/groceries/"],
  ["POST", "/api/lists/groceries/tasks"],
  ["DELETE", "/api/lists/groceries/tasks"],
  ["constructor", "/api/lists/groceries/tasks"],
  ["GET", "/tasks"],
];

/** What a router answers, as handlers with their parameters, in order. */
function answer(router: { match: (method: string, path: string) => unknown }, method: string, path: string) {
  const [found] = router.match(method, path) as [[string, Record<string, string>][]];
  return found.map(([handler, params]) => [handler, { ...params }]);
}

test("every request gets the handlers and parameters Hono's TrieRouter gives it, asked twice", () => {
  const ours = new ServedMethodsRouter<string>(LIST_PATH_PARAMETER);
  const trie = new TrieRouter<string>();
  for (const [method, path, handler] of ROUTES) {
    ours.add(method, path, handler);
    trie.add(method, path, handler);
  }
  for (const [method, path] of REQUESTS) {
    const expected = method === "constructor" ? [] : answer(trie, method, path);
    expect(answer(ours, method, path), `${method} ${path}`).toEqual(expected);
    expect(answer(ours, method, path), `${method} ${path}, again`).toEqual(expected);
  }
  expect(answer(ours, "GET", "/api/lists/groceries/tasks/7")).toEqual([["named task", { name: "groceries", id: "7" }]]);
});

test("a route added after a request for its path is among the handlers of the next one", () => {
  const router = new ServedMethodsRouter<string>(LIST_PATH_PARAMETER);
  const named = `${LIST_PATH_PARAMETER.path}/tasks`;
  router.add("GET", "/tasks", "first");
  router.add("GET", named, "first named");
  expect(answer(router, "GET", "/tasks")).toEqual([["first", {}]]);
  expect(answer(router, "GET", "/lists/a/tasks")).toEqual([["first named", { name: "a" }]]);
  router.add("GET", "/tasks", "second");
  router.add("GET", named, "second named");
  expect(answer(router, "GET", "/tasks")).toEqual([
    ["first", {}],
    ["second", {}],
  ]);
  expect(answer(router, "GET", "/lists/a/tasks")).toEqual([
    ["first named", { name: "a" }],
    ["second named", { name: "a" }],
  ]);
});
