// The home page's script: the list as the page shows it, an item per task in id order.
// @ts-check
import { isReadOnly } from "./access.js";
import { byId } from "./dom.js";
import { showTotals } from "./footer.js";
import { shortTitle } from "./title.js";

// Titles only ever go through textContent, and the policy's Trusted Types rule makes any HTML sink
// throw, so a title can never become markup.

/** @typedef {{ id: number, title: string, completed: boolean }} Task */
/**
 * A task's item and the elements that show it; `whole` is whether the person asked for all of a long title.
 * @typedef {{
 *   task: Task, li: HTMLLIElement, text: HTMLElement, toggle: HTMLButtonElement, box: HTMLInputElement,
 *   editInput: HTMLInputElement, edit: HTMLButtonElement, del: HTMLButtonElement, note: HTMLElement, whole: boolean,
 *   noteTimer: number
 * }} Row
 */

export const rows = byId("tasks", HTMLUListElement);
const newTitle = byId("title", HTMLInputElement);
/** @type {Map<number, Row>} */
const shown = new Map();
const NOTE_MS = 5000;
/** Tasks with a change that waits to be sent. @type {Set<number>} */
let waitingIds = new Set();
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
  const ids = new Set(tasks.map((task) => task.id));
  for (const id of [...shown.keys()]) if (!ids.has(id)) remove(id);
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
  const added = newRow(task);
  shown.set(task.id, added);
  completedCount += Number(task.completed);
  rows.insertBefore(added.li, rowAfter(task.id));
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
 * Marks the tasks whose change waits in the outbox, as they are drawn now and later.
 * @param {Set<number>} ids
 */
export function markPending(ids) {
  waitingIds = ids;
  for (const row of shown.values()) row.li.classList.toggle("pending", ids.has(row.task.id));
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

/** Every task the page shows, in id order. */
export function tasksShown() {
  return [...shown.values()].map((row) => row.task);
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

function totals() {
  showTotals(shown.size, completedCount);
}

/**
 * @param {Task} task
 * @returns {Row}
 */
function newRow(task) {
  const li = document.createElement("li");
  li.dataset.id = String(task.id);
  li.classList.toggle("pending", waitingIds.has(task.id));
  const box = document.createElement("input");
  box.type = "checkbox";
  box.className = "done-box";
  const edit = button("edit", "Edit");
  const del = button("delete", "Delete");
  const editInput = document.createElement("input");
  editInput.type = "text";
  editInput.className = "edit-input";
  editInput.hidden = true;
  // Never hidden, only empty: a live region already in the page is what screen readers announce.
  const note = document.createElement("p");
  note.className = "note";
  note.setAttribute("role", "status");
  const text = element("span", "title-text");
  text.id = `title-${task.id}`;
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "title-toggle";
  toggle.setAttribute("aria-controls", text.id);
  const view = element("span", "title-view");
  view.append(text, toggle);
  const actions = element("span", "actions");
  actions.append(edit, del);
  const line = element("div", "view");
  line.append(box, view, editInput, actions);
  li.append(line, note);
  if (isReadOnly()) for (const control of [box, edit, del]) control.disabled = true;
  /** @type {Row} */
  const row = { task, li, text, toggle, box, editInput, edit, del, note, whole: false, noteTimer: 0 };
  toggle.addEventListener("click", () => {
    row.whole = !row.whole;
    showWhole(row, shortTitle(row.task.title));
  });
  showState(row);
  showTitle(row);
  return row;
}

/**
 * Shows whether the task is done; each write only where it changes something.
 * @param {Row} row
 */
function showState(row) {
  const done = row.task.completed;
  row.li.classList.toggle("done", done);
  if (row.box.checked !== done) row.box.checked = done;
}

/**
 * Shows the title, and names each control after it: a long one by its start only, or a screen
 * reader would read out all of it for every control.
 * @param {Row} row
 */
function showTitle(row) {
  const short = shortTitle(row.task.title);
  const name = short === "" ? "(no title)" : short;
  row.box.setAttribute("aria-label", name);
  row.editInput.setAttribute("aria-label", `New title for ${name}`);
  row.edit.setAttribute("aria-label", `Edit ${name}`);
  row.del.setAttribute("aria-label", `Delete ${name}`);
  showWhole(row, short);
}

/**
 * Shows all of a long title when the person asked for it, else its start, and the button that switches.
 * @param {Row} row
 * @param {string} short the title as shortTitle gives it
 */
function showWhole(row, short) {
  const long = short !== row.task.title;
  const whole = long && row.whole;
  row.text.textContent = whole ? row.task.title : short;
  row.text.classList.toggle("whole", whole);
  row.toggle.hidden = !long;
  row.toggle.textContent = whole ? "Show less" : "Show all";
  row.toggle.setAttribute("aria-expanded", String(whole));
  row.toggle.setAttribute("aria-label", `${row.toggle.textContent} of the title of task ${row.task.id}`);
}

/**
 * @param {string} action
 * @param {string} text
 */
function button(action, text) {
  const created = document.createElement("button");
  created.type = "button";
  created.className = action;
  created.dataset.action = action;
  created.textContent = text;
  return created;
}

/**
 * @param {string} tag
 * @param {string} className
 */
function element(tag, className) {
  const created = document.createElement(tag);
  created.className = className;
  return created;
}
