// The home page's script: each task's checkbox and Mark all, and how a task is written and read.
// @ts-check

// Each write is sent with If-Match, so that it never overwrites a change the page has not shown.
import { readOnly } from "./access.js";
import { byId, notify } from "./dom.js";
import { note, put, queuedRows, remove, rows, taskOf, tasksShown } from "./list.js";
import { queue } from "./outbox.js";
import { messageOf, sendTask, tasksUrl } from "./service.js";
import { askForToken, unusable } from "./sync.js";
import { shortTitle } from "./title.js";

/** @typedef {import("./list.js").Task} Task */
/** @typedef {{ method: "PATCH", body: Partial<Task> } | { method: "DELETE" }} Write */

const markAll = byId("toggle-all", HTMLInputElement);
/** Tasks with a write under way: a second click waits for the first to be answered. */
const busy = new Set();
/** Each task with a change under way, as it was before the change showed. @type {Map<number, Task>} */
const before = new Map();
/** Listens once on the list for every task's checkbox, present and future, and on Mark all. */
export function controlTasks() {
  for (const list of [rows, queuedRows]) {
    list.addEventListener("change", (event) => {
      const box = event.target;
      if (box instanceof HTMLInputElement && box.classList.contains("done-box")) {
        act(idOf(box), { method: "PATCH", body: { completed: box.checked } });
      }
    });
  }
  markAll.addEventListener("change", () => {
    const completed = markAll.checked;
    for (const task of tasksShown())
      if (task.completed !== completed) act(task.id, { method: "PATCH", body: { completed } });
  });
}

/** @param {HTMLElement} element */
export function idOf(element) {
  return Number(/** @type {HTMLElement | null} */ (element.closest("li"))?.dataset.id);
}

/**
 * Writes to one task, once the service confirms it still is `seen`, what the person acted on. A
 * change shows at once, and the service's answer decides: it is undone when nothing was written.
 * @param {number} id
 * @param {Write} write
 * @param {Task | undefined} seen
 * @returns {Promise<Task | undefined>} the task as it now is, when it was changed elsewhere and
 *   nothing was written
 */
export async function act(id, write, seen = taskOf(id)) {
  const shown = taskOf(id);
  if (seen === undefined || shown === undefined) return;
  // An add that waits has no id on the service yet: the change waits behind it, to go to the id it gets.
  if (id < 0) {
    if (write.method === "PATCH") queue({ kind: "patch", id, body: write.body, seen });
    return;
  }
  // A second change while the first is under way is undone on screen: the first one's answer decides.
  if (busy.has(id)) return void put(shown);
  busy.add(id);
  note(id, "");
  if (write.method === "PATCH") {
    before.set(id, shown);
    put({ ...shown, ...write.body });
  }
  try {
    const current = await readTask(id);
    if (current === undefined) return;
    if (!same(current.task, seen)) {
      changedElsewhere(current.task);
      return current.task;
    }
    return await answered(id, await sendTask(`${tasksUrl}/${id}`, writeInit(write, current.etag)));
  } catch (error) {
    unchanged(id);
    // Out of reach: the change waits in the outbox, and the task shows as it will be.
    if (!unusable(error) && write.method === "PATCH") {
      queue({ kind: "patch", id, body: write.body, seen });
      put({ ...seen, ...write.body });
    }
  } finally {
    busy.delete(id);
    before.delete(id);
  }
}

/**
 * @param {Write} write
 * @param {string} etag
 * @returns {RequestInit & { headers: Record<string, string> }}
 */
function writeInit(write, etag) {
  if (write.method === "DELETE") return { method: "DELETE", headers: { "If-Match": etag } };
  return {
    method: "PATCH",
    headers: { "Content-Type": "application/merge-patch+json", "If-Match": etag },
    body: JSON.stringify(write.body),
  };
}

/**
 * Shows what the service made of a write.
 * @param {number} id
 * @param {Response} res
 * @returns {Promise<Task | undefined>} the task as it now is, when it was changed elsewhere
 */
async function answered(id, res) {
  if (res.status === 200) return void put(await res.json());
  if (res.status === 204) return void remove(id);
  // Nothing was written: the row shows the task as the page last knew it, not the click.
  unchanged(id);
  if (res.status === 412) {
    const current = await readTask(id);
    if (current !== undefined) changedElsewhere(current.task);
    return current?.task;
  }
  if (res.status === 410 || res.status === 404) deletedElsewhere(id);
  else if (res.status === 401) askForToken(await messageOf(res));
  else if (res.status === 403) readOnly(await messageOf(res));
  else note(id, await messageOf(res));
  return undefined;
}

/**
 * Shows a task as the page knew it before a change it did not make.
 * @param {number} id
 */
export function unchanged(id) {
  const shown = taskOf(id);
  if (shown !== undefined) put(before.get(id) ?? shown);
}

/**
 * The task as the service now has it, with its ETag; undefined when it is gone or the read failed
 * (which the page then says). Throws when the service cannot be reached, or answers 503.
 * @param {number} id
 * @returns {Promise<{ task: Task, etag: string } | undefined>}
 */
export async function readTask(id) {
  const res = await sendTask(`${tasksUrl}/${id}`);
  const etag = res.headers.get("ETag");
  if (res.status === 200 && etag !== null) return { task: await res.json(), etag };
  unchanged(id);
  if (res.status === 410 || res.status === 404) deletedElsewhere(id);
  else if (res.status === 401) askForToken(await messageOf(res));
  else note(id, `Could not read the task: ${await messageOf(res)}`);
  return undefined;
}

/** @param {Task} task */
export function changedElsewhere(task) {
  put(task);
  const state = task.completed ? "done" : "not done";
  note(
    task.id,
    `This task was changed elsewhere: it now reads “${shortTitle(task.title)}”, ${state}. Nothing was changed`,
  );
}

/** @param {number} id */
function deletedElsewhere(id) {
  remove(id);
  notify(`Task ${id} was deleted elsewhere`);
}

/**
 * @param {Task} a
 * @param {Task} b
 */
export function same(a, b) {
  return a.title === b.title && a.completed === b.completed;
}
