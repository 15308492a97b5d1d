// Lists other than the default one in their own Durable Objects, made directly through each
// list's object, for tests of one list's store that need no directory; and the bindings, counted.
import { env } from "cloudflare:workers";
import type { TaskListObject } from "../../src/runtimes/durable-objects/task-list-object.ts";
import type { DirectoryNamespace } from "../../src/store/durable-object/durable-lists.ts";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";
import type { ListObjectNamespace, ListObjectRpc } from "../../src/store/durable-object/list-object-rpc.ts";

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

/** The bindings of the list objects and the directory, with the methods called on list objects, in order. */
export function countedBindings(): { lists: ListObjectNamespace; directory: DirectoryNamespace; calls: string[] } {
  const calls: string[] = [];
  const lists: ListObjectNamespace = {
    getByName: (name) => {
      const stub = listObjects().getByName(name) as unknown as Record<string, unknown>;
      return new Proxy(stub, {
        get(target, property) {
          if (typeof property !== "string" || property === "then") return target[property as string];
          return (...args: unknown[]) => {
            calls.push(property);
            return (target as Record<string, (...a: unknown[]) => unknown>)[property]?.(...args);
          };
        },
      }) as unknown as ListObjectRpc;
    },
  };
  const directory: DirectoryNamespace = {
    getByName: (name) => {
      if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
      return env.TASK_LISTS.getByName(name);
    },
  };
  return { lists, directory, calls };
}
