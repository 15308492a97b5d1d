// Lists other than the default one in their own Durable Objects, made directly through each
// list's object, for tests of one list's store that need no directory.
import { env } from "cloudflare:workers";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";
import type { TaskListObject } from "../../src/store/durable-object/task-list-object.ts";

const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };

/** The binding of the list objects. */
export function listObjects(): DurableObjectNamespace<TaskListObject> {
  if (env.TASK_LIST === undefined) throw new Error("The durable environment must bind TASK_LIST");
  return env.TASK_LIST;
}

/** Makes list `name` live in its object, with `tasks` tasks titled `Task 1`, `Task 2`…, and returns a store of it. */
export async function madeList(name: string, tasks = 0): Promise<DurableObjectStore> {
  await listObjects()
    .getByName(name)
    .create({ name, title: `List ${name}`, version: `${name}-made` });
  const store = new DurableObjectStore(listObjects(), name);
  for (let i = 1; i <= tasks; i++) await store.append({ title: `Task ${i}`, completed: false }, LIMITS);
  return store;
}
