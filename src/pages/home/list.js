// The home page's script: the list as the page shows it, an item per task in id order.
// @ts-check
import { byId } from "./dom.js";
import { showTotals } from "./footer.js";
import { keepSeen } from "./offline.js";
import { newRow, showPending, showState, showTitle } from "./row.js";

/** @typedef {{ id: number, title: string, completed: boolean }} Task */
/** @typedef {import("./row.js").Row} Row */

export const rows = byId("tasks", HTMLUListElement);
// The adds that wait in the outbox: rows after the list's, in the order they were made. Until the
// service gives them an id, each has one of the page's own, below zero, that no task has.
export const queuedRows = byId("queued", HTMLUListElement);
const loadingNote = byId("loading", HTMLParagraphElement);
const newTitle = byId("title", HTMLInputElement);
/** @type {Map<number, Row>} */
const shown = new Map();
const NOTE_MS = 5000;
/** Tasks with a change that waits to be sent. @type {Set<number>} */
let changing = new Set();
/** Tasks whose deletion waits to be sent: shown, marked, and no longer to be acted on. @type {Set<number>} */
let deleting = new Set();
let completedCount = 0;
/**
 * Tasks the person deleted, kept off the list while they may still be brought back: each as the
 * service last said it is, undefined while it has said nothing, null once it was deleted elsewhere.
 * @type {Map<number, Task | null | undefined>}
 */
const held = new Map();

/**
 * Shows exactly `tasks`: rows already shown are updated in place, so focus and a title being
 * edited stay where they are.
 * @param {Task[]} tasks
 */
export function render(tasks) {
  loadingNote.hidden = true;
  const ids = new Set(tasks.map((task) => task.id));
  for (const id of [...shown.keys()]) if (id > 0 && !ids.has(id)) remove(id);
  for (const task of tasks) put(task);
}

/**
 * Shows a task as it now is: in its place by id, a new row when it was not shown.
 * @param {Task} task
 */
export function put(task) {
  if (held.has(task.id)) {
    if (held.get(task.id) !== null) held.set(task.id, task);
    return;
  }
  const row = shown.get(task.id);
  if (row !== undefined) {
    // Comparing titles is one pass over them, drawing one far more: a row is redrawn only where it changed.
    const retitled = row.task.title !== task.title;
    // A note says what became of the task as the row showed it; once the task changes again, it is stale.
    if (retitled || row.task.completed !== task.completed) note(task.id, "");
    completedCount += Number(task.completed) - Number(row.task.completed);
    row.task = task;
    showState(row);
    if (retitled) showTitle(row);
    totals();
    return;
  }
  const added = newRow(task, waitingFor(task.id));
  shown.set(task.id, added);
  completedCount += Number(task.completed);
  if (task.id < 0) {
    queuedRows.append(added.li);
    queuedRows.hidden = false;
  } else rows.insertBefore(added.li, rowAfter(task.id));
  totals();
}

/**
 * Takes a task off the list; focus in its row moves to the next row's checkbox, or the new-task field.
 * @param {number} id
 */
export function remove(id) {
  if (held.has(id)) held.set(id, null);
  const row = shown.get(id);
  if (row === undefined) return;
  const hadFocus = row.li.contains(document.activeElement);
  const next = /** @type {HTMLLIElement | null} */ (row.li.nextElementSibling ?? row.li.previousElementSibling);
  row.li.remove();
  queuedRows.hidden = queuedRows.childElementCount === 0;
  shown.delete(id);
  completedCount -= Number(row.task.completed);
  totals();
  if (!hadFocus) return;
  const box = next?.querySelector(".done-box");
  (box instanceof HTMLInputElement && !next?.hidden ? box : newTitle).focus();
}

/**
 * Keeps a task off the list until `release`, whatever the service says of it meanwhile.
 * @param {number} id
 */
export function hold(id) {
  remove(id);
  held.set(id, undefined);
}

/**
 * Lets the service's word on a held task show again.
 * @param {number} id
 * @returns {Task | null | undefined} the task as the service last said it is while it was held:
 *   null when it was deleted elsewhere, undefined when the service said nothing of it
 */
export function release(id) {
  const latest = held.get(id);
  held.delete(id);
  return latest;
}

/**
 * Marks the tasks whose change or deletion waits in the outbox, as they are drawn now and later.
 * @param {Set<number>} changed
 * @param {Set<number>} deleted
 */
export function markPending(changed, deleted) {
  const before = new Set([...changing, ...deleting]);
  changing = changed;
  deleting = deleted;
  for (const id of new Set([...before, ...changed, ...deleted])) {
    const row = shown.get(id);
    if (row !== undefined) showPending(row, waitingFor(id));
  }
  totals();
}

/**
 * What waits in the outbox for a task.
 * @param {number} id
 * @returns {import("./row.js").Waiting}
 */
function waitingFor(id) {
  return deleting.has(id) ? "delete" : id < 0 ? "add" : changing.has(id) ? "change" : "";
}

/**
 * Shows the adds that wait in the outbox, after the list, each as it will be once its changes
 * that wait are made too: a person may mark, rename or delete it before it is sent.
 * @param {Task[]} tasks
 */
export function showQueued(tasks) {
  const ids = new Set(tasks.map((task) => task.id));
  for (const id of [...shown.keys()]) if (id < 0 && !ids.has(id)) remove(id);
  for (const task of tasks) put(task);
}

/**
 * Gives the focus to a task's checkbox, as after its deletion was undone.
 * @param {number} id
 */
export function focusTask(id) {
  shown.get(id)?.box.focus();
}

/** Drops every task shown: what the service holds follows. */
export function clear() {
  render([]);
}

/**
 * The task as the page shows it, if it does.
 * @param {number} id
 */
export function taskOf(id) {
  return shown.get(id)?.task;
}

/** Every task the page shows that a person may still act on (its deletion does not wait), in id order. */
export function tasksShown() {
  return [...shown.values()].filter((row) => !deleting.has(row.task.id)).map((row) => row.task);
}

/**
 * Says something about one task next to it; "" clears it.
 * @param {number} id
 * @param {string} text
 */
export function note(id, text) {
  const row = shown.get(id);
  if (row === undefined) return;
  clearTimeout(row.noteTimer);
  if (row.note.textContent !== text) row.note.textContent = text;
  // Like every passing message, it clears itself once it has been read.
  if (text !== "") row.noteTimer = setTimeout(() => note(id, ""), NOTE_MS);
}

/**
 * The row a new task goes before: none (the end) for a task newer than all, the usual case.
 * @param {number} id
 */
function rowAfter(id) {
  if (Number(/** @type {HTMLElement | null} */ (rows.lastElementChild)?.dataset.id ?? 0) < id) return null;
  let after = null;
  for (const row of shown.values())
    if (row.task.id > id && (after === null || row.task.id < after.task.id)) after = row;
  return after?.li ?? null;
}

// What is left counts the adds that wait, not the deletions: the list as it will be once they are sent.
function totals() {
  let gone = 0;
  let goneCompleted = 0;
  for (const id of deleting) {
    const task = shown.get(id)?.task;
    gone += Number(task !== undefined);
    goneCompleted += Number(task?.completed === true);
  }
  showTotals(shown.size - gone, completedCount - goneCompleted);
  keepSeen(seenTasks);
}

/** The list as the service has it, as far as the page knows: what is kept for a reload offline. */
function seenTasks() {
  return [...shown.values()].filter((row) => row.task.id > 0).map((row) => row.task);
}
