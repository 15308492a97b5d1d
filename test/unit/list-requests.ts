// The requests the lists' tests send, through app.request, on any store and runtime (workerd too).
import { expect } from "vitest";
import type { TaskApp } from "../../src/app.ts";

/** Sends `method` to `path` with `value` as a JSON body and `headers`. */
export function sendJson(
  app: TaskApp,
  method: string,
  path: string,
  value: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    app.request(path, {
      method,
      body: JSON.stringify(value),
      headers: { "Content-Type": "application/json", ...headers },
    }),
  );
}

/** Creates list `name` with PUT and checks the 201. */
export async function createList(app: TaskApp, name: string, title = `List ${name}`): Promise<void> {
  const res = await sendJson(app, "PUT", `/lists/${name}`, { title });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** Adds a task to list `name` and returns its id. */
export async function addTask(app: TaskApp, name: string, title = "A task"): Promise<number> {
  const res = await sendJson(app, "POST", `/lists/${name}/tasks`, { title, completed: false });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: number }).id;
}
