// The list's limits when tasks change: an edit that would take the list past MAX_LIST_BYTES is
// refused, and a deletion frees room under MAX_TASKS and MAX_LIST_BYTES. They run on a full list.

import { check, checkEqual, fail } from "../support/check.ts";
import { checkFullByBytes, fillTo } from "./byte-limit.ts";
import { checkUnchanged } from "./expect.ts";
import { fill, type StatefulCase } from "./stateful.ts";
import { changed, toTask } from "./task-changes.ts";

/** The cases for the limits a target names; each leaves the list as full as it found it. */
export function taskLimitCases(options: { maxListBytes?: number; maxTasks?: number }): StatefulCase[] {
  const { maxListBytes, maxTasks } = options;
  const cases: StatefulCase[] = [];
  if (maxListBytes !== undefined) {
    cases.push({
      name: "on a list at MAX_LIST_BYTES, a PATCH that lengthens a title returns 507 naming the byte limit, one that shortens it passes, and a deletion frees room for a new task",
      async run(client) {
        await fillTo(client, maxListBytes);
        const before = await client.readList();
        const last = before.tasks.at(-1) ?? fail("the full list is empty");
        const longer = await client.send(toTask("PATCH", last.id, { title: `${last.title}x` }));
        checkEqual(longer.status, 507, "status of a PATCH past MAX_LIST_BYTES");
        checkFullByBytes(longer);
        const put = await client.send(toTask("PUT", last.id, { title: `${last.title}x`, completed: false }));
        checkEqual(put.status, 507, "status of a PUT past MAX_LIST_BYTES");
        await checkUnchanged(client, before.text, before.etag);
        const shorter = { title: last.title.slice(0, -1) };
        changed(await client.send(toTask("PATCH", last.id, shorter)), "a PATCH that shortens the title");
        changed(await client.send(toTask("PATCH", last.id, { title: last.title })), "a PATCH back to its size");
        const largest = before.tasks.slice(0, -1).reduce((a, b) => (b.title.length > a.title.length ? b : a));
        checkEqual((await client.send(toTask("DELETE", largest.id))).status, 204, "DELETE of a large task");
        await fillTo(client, maxListBytes);
        check((await client.readList()).byteLength === maxListBytes, "the list filled again to MAX_LIST_BYTES");
      },
    });
  }
  if (maxTasks !== undefined) {
    cases.push({
      name: "on a list of MAX_TASKS tasks, deleting one makes room for exactly one new task",
      async run(client) {
        await fill(client, maxTasks);
        const { tasks } = await client.readList();
        const first = tasks[0] ?? fail("the full list is empty");
        checkEqual((await client.send(toTask("DELETE", first.id))).status, 204, "DELETE on a full list");
        const added = await client.create({ title: "In the room a deletion made", completed: false });
        checkEqual(added.id, (tasks.at(-1)?.id ?? 0) + 1, "id of the task added after the deletion");
        const after = await client.readList();
        const more = await client.send({
          method: "POST",
          path: "/tasks",
          headers: { "Content-Type": "application/json" },
          body: '{"title":"One too many","completed":false}',
        });
        checkEqual(more.status, 507, "status of a POST once the room is taken");
        await checkUnchanged(client, after.text, after.etag);
      },
    });
  }
  return cases;
}
