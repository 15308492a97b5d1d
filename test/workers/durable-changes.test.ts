import { env } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import type { ListVersion } from "../../src/list/encoded-list.ts";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";
import type { TaskListObject } from "../../src/store/durable-object/task-list-object.ts";

const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
const decoder = new TextDecoder();

const namespace = (): DurableObjectNamespace<TaskListObject> => {
  if (env.TASK_LIST === undefined) throw new Error("The durable environment must bind TASK_LIST");
  return env.TASK_LIST;
};

function body(list: ListVersion): string {
  return list
    .body()
    .parts.map((part) => decoder.decode(part))
    .join("");
}

describe("tasks that change, in the Durable Object", () => {
  test("an edit or a deletion made through one isolate is read by another under the same versions, and If-Match holds", async () => {
    const one = new DurableObjectStore(namespace());
    const two = new DurableObjectStore(namespace());
    const start = await two.read();
    const added = await one.append({ title: "To change", completed: false }, LIMITS);
    if (added.outcome !== "added") throw new Error("the task must be added");
    const id = added.task.id;
    const found = (await one.read()).task(id);
    if (found.outcome !== "found") throw new Error("the task must be found");
    const [first, second] = await Promise.all([
      one.update(id, { title: "Changed \ud800" }, LIMITS, [found.version]),
      two.update(id, { completed: true }, LIMITS, [found.version]),
    ]);
    expect([first.outcome, second.outcome].sort()).toEqual(["precondition-failed", "updated"]);
    const [a, b] = [await one.read(), await two.read()];
    expect(b.version).toBe(a.version);
    expect(b.task(id)).toEqual(a.task(id));
    expect(await two.remove(id)).toMatchObject({ outcome: "deleted" });
    const after = await one.read();
    expect(after.task(id)).toEqual({ outcome: "gone" });
    expect(after.change).toBe(start.change + 3);
    const held = new Map([...start.tasksAfter(0)].map((task) => [task.id, decoder.decode(task.json)]));
    for (const event of after.eventsAfter(start.change).events) {
      if (event.event === "delete") held.delete(event.id);
      else held.set(event.id, decoder.decode(event.json));
    }
    expect(`[${[...held.values()].join(",")}]`).toBe(body(after));
  });
});
