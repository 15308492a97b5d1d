// The home page's script: a task's row, and how it shows the task, its title and what waits to be sent.
// @ts-check
import { isReadOnly } from "./access.js";
import { shortTitle } from "./title.js";

// Titles only ever go through textContent, and the policy's Trusted Types rule makes any HTML sink
// throw, so a title can never become markup.

/** @typedef {import("./list.js").Task} Task */
/**
 * A task's item and the elements that show it; `whole` is whether the person asked for all of a long title.
 * @typedef {{
 *   task: Task, li: HTMLLIElement, text: HTMLElement, toggle: HTMLButtonElement, box: HTMLInputElement,
 *   editInput: HTMLInputElement, edit: HTMLButtonElement, del: HTMLButtonElement, note: HTMLElement,
 *   mark: HTMLElement, whole: boolean, noteTimer: number
 * }} Row
 */

/** What a row says of what waits for its task. */
const PENDING_WORDS = {
  "": "",
  add: "waiting to be added",
  change: "waiting to be sent",
  delete: "waiting to be deleted",
};

/** What waits in the outbox for a task: nothing, its add, a change or its deletion. @typedef {"" | "add" | "change" | "delete"} Waiting */

/**
 * @param {Task} task
 * @param {Waiting} waiting
 * @returns {Row}
 */
export function newRow(task, waiting) {
  const li = document.createElement("li");
  li.dataset.id = String(task.id);
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
  // Focusable, so that Enter on it edits it as a double click does.
  text.setAttribute("aria-describedby", "edit-hint");
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "title-toggle";
  toggle.setAttribute("aria-controls", text.id);
  const mark = element("span", "pending-mark");
  const view = element("span", "title-view");
  view.append(text, toggle, " ", mark);
  const actions = element("span", "actions");
  actions.append(edit, del);
  const line = element("div", "view");
  line.append(box, view, editInput, actions);
  li.append(line, note);
  /** @type {Row} */
  const row = { task, li, text, toggle, box, editInput, edit, del, note, mark, whole: false, noteTimer: 0 };
  toggle.addEventListener("click", () => {
    row.whole = !row.whole;
    showWhole(row, shortTitle(row.task.title));
  });
  showState(row);
  showTitle(row);
  showPending(row, waiting);
  return row;
}

/**
 * Says whether a change or the deletion of the task waits to be sent; one whose deletion waits
 * can no longer be changed, nor deleted again.
 * @param {Row} row
 * @param {Waiting} waiting
 */
export function showPending(row, waiting) {
  const gone = waiting === "delete";
  const text = PENDING_WORDS[waiting];
  row.li.classList.toggle("pending", text !== "");
  row.li.classList.toggle("deleting", gone);
  row.mark.textContent = text;
  row.mark.hidden = text === "";
  const off = gone || isReadOnly();
  for (const control of [row.box, row.edit, row.del]) control.disabled = off;
  row.text.tabIndex = off ? -1 : 0;
}

/**
 * Shows whether the task is done; each write only where it changes something.
 * @param {Row} row
 */
export function showState(row) {
  const done = row.task.completed;
  row.li.classList.toggle("done", done);
  if (row.box.checked !== done) row.box.checked = done;
}

/**
 * Shows the title, and names each control after it: a long one by its start only, or a screen
 * reader would read out all of it for every control.
 * @param {Row} row
 */
export function showTitle(row) {
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
