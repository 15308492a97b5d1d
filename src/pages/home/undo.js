// The home page's script: deleting tasks, which a person can undo for a few seconds.
// @ts-check
import { readOnly } from "./access.js";
import { byId, notify } from "./dom.js";
import { focusTask, hold, put, queuedRows, release, rows, taskOf, tasksShown } from "./list.js";
import { cancelAdd, queue } from "./outbox.js";
import { messageOf, sendTask, tasksUrl } from "./service.js";
import { askForToken, unusable } from "./sync.js";
import { changedElsewhere, idOf, readTask, same } from "./task-controls.js";
import { shortTitle } from "./title.js";

/** @typedef {import("./list.js").Task} Task */

const clearButton = byId("clear-completed", HTMLButtonElement);

/** Listens once for every task's Delete button, present and future, and for Clear completed. */
export function deleteTasks() {
  for (const list of [rows, queuedRows]) {
    list.addEventListener("click", (event) => {
      const target = event.target;
      if (target instanceof HTMLButtonElement && target.dataset.action === "delete") {
        const task = taskOf(idOf(target));
        if (task !== undefined) deleteWithUndo([task]);
      }
    });
  }
  clearButton.addEventListener("click", () => deleteWithUndo(tasksShown().filter((task) => task.completed)));
}

/**
 * Takes tasks off the list at once and deletes them on the service once the message that offers
 * to undo it goes: after a few seconds, when another takes its place, or when the page is closed.
 * Each is read first, so that its DELETE can carry its ETag as If-Match even as the page closes.
 * @param {Task[]} seen the tasks as the person saw them
 */
export async function deleteWithUndo(seen) {
  /** @type {{ task: Task, etag: string }[]} */
  const doomed = [];
  try {
    for (const task of seen) {
      // An add that waits is the page's own until it is sent: nothing to read.
      if (task.id < 0) {
        doomed.push({ task, etag: "" });
        continue;
      }
      const current = await readTask(task.id);
      if (current === undefined) continue;
      if (!same(current.task, task)) changedElsewhere(current.task);
      else doomed.push(current);
    }
  } catch (error) {
    if (unusable(error)) return;
    // Out of reach: what was not read waits in the outbox, its row marked so.
    const read = new Set(doomed.map((one) => one.task.id));
    for (const task of seen) if (!read.has(task.id)) queue({ kind: "delete", id: task.id, seen: task });
  }
  if (doomed.length === 0) return;
  for (const { task } of doomed) hold(task.id);
  const first = doomed[0]?.task.title ?? "";
  notify(doomed.length === 1 ? `Deleted “${shortTitle(first)}”` : `Deleted ${doomed.length} tasks`, {
    undo: () => {
      for (const { task } of doomed) putBack(task);
      // The Undo button goes: the focus goes to what it brought back rather than to the page's start.
      focusTask(doomed[0]?.task.id ?? 0);
    },
    expire: () => {
      for (const doomedTask of doomed) deleteNow(doomedTask);
    },
  });
}

/**
 * Sends the DELETE, kept alive so that it reaches the service even when the page is being closed.
 * @param {{ task: Task, etag: string }} doomed
 */
async function deleteNow({ task, etag }) {
  if (task.id < 0) {
    if (cancelAdd(task)) release(task.id);
    else putBack(task);
    return;
  }
  try {
    const res = await sendTask(`${tasksUrl}/${task.id}`, {
      method: "DELETE",
      keepalive: true,
      headers: { "If-Match": etag },
    });
    if (res.status === 204 || res.status === 410 || res.status === 404) {
      release(task.id);
      return;
    }
    putBack(task);
    if (res.status === 412) {
      const current = await readTask(task.id);
      if (current !== undefined) changedElsewhere(current.task);
    } else if (res.status === 401) askForToken(await messageOf(res));
    else if (res.status === 403) readOnly(await messageOf(res));
    else notify(await messageOf(res));
  } catch (error) {
    // Out of reach: the deletion waits in the outbox, the task back on the list, marked so.
    if (!unusable(error)) queue({ kind: "delete", id: task.id, seen: task });
    putBack(task);
  }
}

/**
 * Shows a task that could not be deleted as the page last knew it.
 * @param {Task} task
 */
function putBack(task) {
  const latest = release(task.id);
  if (latest !== null) put(latest ?? task);
}
