// Apps with many lists in memory, and the requests the lists' tests send.
import { expect } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { type EnvRecord, parseAppConfig } from "../../src/config.ts";
import { HeldLists } from "../../src/store/held-lists.ts";

/** The app over lists in memory, configured from `env` (its log off unless `env` says otherwise). */
export function listsApp(env: EnvRecord = {}): TaskApp {
  return createApp({ lists: new HeldLists(), config: parseAppConfig({ LOG_LEVEL: "off", ...env }) });
}

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
