// The home page's script: editing a task's title in place.
// @ts-check
import { taskOf } from "./list.js";
import { act, idOf } from "./task-controls.js";
import { deleteWithUndo } from "./undo.js";

/** @typedef {import("./list.js").Task} Task */

/**
 * Each task being edited, as it was when editing began: a change made elsewhere meanwhile is
 * hidden behind the field, so the new title is written only over the task the person saw.
 * @type {Map<number, Task>}
 */
const editing = new Map();

/**
 * Edits a title on a double click on it or its Edit button; Enter or leaving the field saves,
 * Escape cancels, and an empty title deletes the task.
 * @param {HTMLElement} list
 */
export function editTitles(list) {
  list.addEventListener("dblclick", (event) => {
    const target = event.target;
    if (target instanceof HTMLElement && target.closest(".title-text") !== null) startEdit(target);
  });
  list.addEventListener("click", (event) => {
    const target = event.target;
    if (target instanceof HTMLButtonElement && target.dataset.action === "edit") startEdit(target);
  });
  list.addEventListener("keydown", (event) => {
    const input = editField(event.target);
    if (input === undefined) return;
    if (event.key === "Enter") {
      event.preventDefault();
      save(input, true);
    } else if (event.key === "Escape") {
      event.preventDefault();
      endEdit(input, true);
    }
  });
  list.addEventListener("focusout", (event) => {
    const input = editField(event.target);
    if (input !== undefined && editing.has(idOf(input))) save(input, false);
  });
}

/** @param {EventTarget | null} target */
function editField(target) {
  return target instanceof HTMLInputElement && target.classList.contains("edit-input") ? target : undefined;
}

/** @param {HTMLElement} within */
function startEdit(within) {
  const li = within.closest("li");
  const input = li?.querySelector(".edit-input");
  const seen = taskOf(idOf(within));
  if (!(input instanceof HTMLInputElement) || li === null || seen === undefined || input.disabled) return;
  editing.set(seen.id, seen);
  // The field holds the whole title, however long: what is saved is what the person edited.
  input.value = seen.title;
  li.classList.add("editing");
  input.hidden = false;
  input.focus();
  input.select();
}

/**
 * Writes the edited title, trimmed, over the task as it was seen; an empty one deletes the task.
 * @param {HTMLInputElement} input
 * @param {boolean} refocus whether focus goes back to the task's Edit button
 */
function save(input, refocus) {
  const id = idOf(input);
  const seen = editing.get(id);
  const title = input.value.trim();
  endEdit(input, refocus);
  if (seen === undefined) return;
  if (title === "") deleteWithUndo([seen]);
  else if (title !== seen.title) act(id, { method: "PATCH", body: { title } }, seen);
}

/**
 * Shows the title again in place of its field.
 * @param {HTMLInputElement} input
 * @param {boolean} refocus whether focus goes back to the task's Edit button
 */
function endEdit(input, refocus) {
  const li = input.closest("li");
  editing.delete(idOf(input));
  li?.classList.remove("editing");
  input.hidden = true;
  // Hidden, it need not hold on to a title that may be a megabyte.
  input.value = "";
  const button = li?.querySelector("[data-action=edit]");
  if (refocus && button instanceof HTMLButtonElement) button.focus();
}
