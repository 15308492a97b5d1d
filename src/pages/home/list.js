// The home page's script: the list as the page shows it, a table row per task in id order.
// @ts-check
import { byId } from "./dom.js";

// Titles only ever go through textContent, and the policy's Trusted Types rule makes any HTML sink
// throw, so a title can never become markup.

/** @typedef {{ id: number, title: string, completed: boolean }} Task */
/** @typedef {{ task: Task, tr: HTMLTableRowElement }} Row */

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
    // A note says what became of the task as the row showed it; once the task changes again, it is stale.
    if (row.task.title !== task.title || row.task.completed !== task.completed) note(task.id, "");
    row.task = task;
    fill(row.tr, task);
    return;
  }
  const tr = newRow(task);
  shown.set(task.id, { task, tr });
  rows.insertBefore(tr, rowAfter(task.id));
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
  const element = shown.get(id)?.tr.querySelector(".note");
  if (element instanceof HTMLElement) element.textContent = text;
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

/** @param {Task} task */
function newRow(task) {
  const tr = document.createElement("tr");
  tr.dataset.id = String(task.id);
  const done = document.createElement("input");
  done.type = "checkbox";
  done.className = "done-box";
  const rename = button("rename", "Rename");
  const del = button("delete", "Delete");
  const titleInput = document.createElement("input");
  titleInput.type = "text";
  titleInput.className = "rename-input";
  titleInput.hidden = true;
  // Never hidden, only empty: a live region already in the page is what screen readers announce.
  const message = document.createElement("p");
  message.className = "note";
  message.setAttribute("role", "status");
  const actions = cell("", "actions");
  actions.append(rename, del, message);
  const title = cell("", "title");
  title.append(span("title-text"), titleInput);
  const state = cell("", "state");
  state.append(done, span("state-text"));
  tr.append(cell(String(task.id), "id"), title, state, actions);
  fill(tr, task);
  return tr;
}

/**
 * Writes a task into its row, and names each control after its title.
 * @param {HTMLTableRowElement} tr
 * @param {Task} task
 */
function fill(tr, task) {
  tr.classList.toggle("done", task.completed);
  for (const [selector, write] of fills) {
    const element = tr.querySelector(selector);
    if (element instanceof HTMLElement) write(element, task);
  }
}

/** @type {[string, (element: HTMLElement, task: Task) => void][]} */
const fills = [
  [
    ".title-text",
    (element, task) => {
      element.textContent = task.title;
    },
  ],
  [
    ".state-text",
    (element, task) => {
      element.textContent = task.completed ? "Done" : "Not done";
    },
  ],
  [
    ".done-box",
    (element, task) => {
      if (element instanceof HTMLInputElement) element.checked = task.completed;
      element.setAttribute("aria-label", `Done: ${task.title}`);
    },
  ],
  [".rename-input", (element, task) => element.setAttribute("aria-label", `New title for ${task.title}`)],
  ["[data-action=rename]", (element, task) => element.setAttribute("aria-label", `Rename ${task.title}`)],
  ["[data-action=delete]", (element, task) => element.setAttribute("aria-label", `Delete ${task.title}`)],
];

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
