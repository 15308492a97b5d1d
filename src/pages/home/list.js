// The home page's script: the list as the page shows it, a table row per task.
// @ts-check
import { byId } from "./dom.js";

// Titles only ever go through textContent, and the policy's Trusted Types rule makes any HTML sink
// throw, so a title can never become markup.

/** @typedef {{ id: number, title: string, completed: boolean }} Task */

const rows = byId("tasks", HTMLTableSectionElement);
const count = byId("count", HTMLParagraphElement);
/** @type {Task[]} */
let shown = [];

/**
 * The list only grows, so a read that still starts with every task shown only appends rows: a
 * long list is laid out once, not again at each change.
 * @param {Task[]} tasks
 */
export function render(tasks) {
  const kept = shown.length <= tasks.length && shown.every((task, i) => sameTask(task, tasks[i])) ? shown.length : 0;
  const fragment = document.createDocumentFragment();
  for (const task of tasks.slice(kept)) fragment.append(row(task));
  if (kept === 0) rows.replaceChildren(fragment);
  else rows.append(fragment);
  shown = tasks;
  showCount();
}

/**
 * A task that follows the last one shown, from the stream.
 * @param {Task} task
 */
export function append(task) {
  if (task.id <= lastId()) return;
  rows.append(row(task));
  shown = [...shown, task];
  showCount();
}

export function lastId() {
  return shown.at(-1)?.id ?? 0;
}

function showCount() {
  count.textContent = shown.length === 1 ? "1 task" : `${shown.length} tasks`;
}

/** @param {Task} task */
function row(task) {
  const tr = document.createElement("tr");
  if (task.completed) tr.className = "done";
  tr.append(
    cell(String(task.id), "id"),
    cell(task.title, "title"),
    cell(task.completed ? "Done" : "Not done", "state"),
  );
  return tr;
}

/**
 * @param {Task} a
 * @param {Task | undefined} b
 */
function sameTask(a, b) {
  return a.id === b?.id && a.title === b.title && a.completed === b.completed;
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
