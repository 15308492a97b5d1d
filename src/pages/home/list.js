// The home page's script: the list as the page shows it, a table row per task in id order.
// @ts-check
import { byId } from "./dom.js";
import { shortTitle } from "./title.js";

// Titles only ever go through textContent, and the policy's Trusted Types rule makes any HTML sink
// throw, so a title can never become markup.

/** @typedef {{ id: number, title: string, completed: boolean }} Task */
/**
 * A task's row and the elements that show it; `whole` is whether the person asked for all of a long title.
 * @typedef {{
 *   task: Task, tr: HTMLTableRowElement, text: HTMLElement, toggle: HTMLButtonElement, box: HTMLInputElement,
 *   state: HTMLElement, renameInput: HTMLInputElement, rename: HTMLButtonElement, del: HTMLButtonElement,
 *   note: HTMLElement, whole: boolean
 * }} Row
 */

export const rows = byId("tasks", HTMLTableSectionElement);
const count = byId("count", HTMLParagraphElement);
/** @type {Map<number, Row>} */
const shown = new Map();

/**
 * Shows exactly `tasks`: rows already shown are updated in place, so focus and a title being
 * renamed stay where they are.
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
  const row = shown.get(task.id);
  if (row !== undefined) {
    // Comparing titles is one pass over them, drawing one far more: a row is redrawn only where it changed.
    const retitled = row.task.title !== task.title;
    // A note says what became of the task as the row showed it; once the task changes again, it is stale.
    if (retitled || row.task.completed !== task.completed) note(task.id, "");
    row.task = task;
    showState(row);
    if (retitled) showTitle(row);
    return;
  }
  const added = newRow(task);
  shown.set(task.id, added);
  rows.insertBefore(added.tr, rowAfter(task.id));
  showCount();
}

/**
 * Takes a task off the list; focus in its row moves to the next row's checkbox, or the heading.
 * @param {number} id
 */
export function remove(id) {
  const row = shown.get(id);
  if (row === undefined) return;
  const hadFocus = row.tr.contains(document.activeElement);
  const next = /** @type {HTMLTableRowElement | null} */ (row.tr.nextElementSibling ?? row.tr.previousElementSibling);
  row.tr.remove();
  shown.delete(id);
  showCount();
  if (!hadFocus) return;
  const box = next?.querySelector(".done-box");
  (box instanceof HTMLInputElement ? box : byId("list-heading", HTMLHeadingElement)).focus();
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

/**
 * Says something about one task next to it; "" clears it.
 * @param {number} id
 * @param {string} text
 */
export function note(id, text) {
  const row = shown.get(id);
  if (row !== undefined && row.note.textContent !== text) row.note.textContent = text;
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
  return after?.tr ?? null;
}

function showCount() {
  count.textContent = shown.size === 1 ? "1 task" : `${shown.size} tasks`;
}

/**
 * @param {Task} task
 * @returns {Row}
 */
function newRow(task) {
  const tr = document.createElement("tr");
  tr.dataset.id = String(task.id);
  const box = document.createElement("input");
  box.type = "checkbox";
  box.className = "done-box";
  const rename = button("rename", "Rename");
  const del = button("delete", "Delete");
  const renameInput = document.createElement("input");
  renameInput.type = "text";
  renameInput.className = "rename-input";
  renameInput.hidden = true;
  // Never hidden, only empty: a live region already in the page is what screen readers announce.
  const note = document.createElement("p");
  note.className = "note";
  note.setAttribute("role", "status");
  const actions = cell("", "actions");
  actions.append(rename, del, note);
  const text = span("title-text");
  text.id = `title-${task.id}`;
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "title-toggle";
  toggle.setAttribute("aria-controls", text.id);
  const view = span("title-view");
  view.append(text, toggle);
  const title = cell("", "title");
  title.append(view, renameInput);
  const state = span("state-text");
  const stateCell = cell("", "state");
  stateCell.append(box, state);
  tr.append(cell(String(task.id), "id"), title, stateCell, actions);
  /** @type {Row} */
  const row = { task, tr, text, toggle, box, state, renameInput, rename, del, note, whole: false };
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
  row.tr.classList.toggle("done", done);
  if (row.box.checked !== done) row.box.checked = done;
  const state = done ? "Done" : "Not done";
  if (row.state.textContent !== state) row.state.textContent = state;
}

/**
 * Shows the title, and names each control after it: a long one by its start only, or a screen
 * reader would read out all of it for every control.
 * @param {Row} row
 */
function showTitle(row) {
  const short = shortTitle(row.task.title);
  row.box.setAttribute("aria-label", `Done: ${short}`);
  row.renameInput.setAttribute("aria-label", `New title for ${short}`);
  row.rename.setAttribute("aria-label", `Rename ${short}`);
  row.del.setAttribute("aria-label", `Delete ${short}`);
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
  const element = document.createElement("button");
  element.type = "button";
  element.dataset.action = action;
  element.textContent = text;
  return element;
}

/** @param {string} className */
function span(className) {
  const element = document.createElement("span");
  element.className = className;
  return element;
}

/**
 * @param {string} text
 * @param {string} className
 */
function cell(text, className) {
  const td = document.createElement("td");
  td.className = className;
  td.textContent = text;
  return td;
}
