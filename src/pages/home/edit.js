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
/** Where each edit began, the title or its Edit button: the focus goes back there when it ends. @type {Map<number, HTMLElement>} */
const began = new Map();

/**
 * Edits a title on a double click on it, Enter on it, or its Edit button; Enter or leaving the
 * field saves, Escape cancels, and an empty title deletes the task.
 * @param {HTMLElement} list
 */
export function editTitles(list) {
  list.addEventListener("dblclick", (event) => {
    const title = titleText(event.target);
    if (title !== undefined) startEdit(title);
  });
  list.addEventListener("click", (event) => {
    const target = event.target;
    if (target instanceof HTMLButtonElement && target.dataset.action === "edit") startEdit(target);
  });
  list.addEventListener("keydown", (event) => {
    const title = titleText(event.target);
    if (title !== undefined && event.key === "Enter") {
      event.preventDefault();
      startEdit(title);
      return;
    }
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
function titleText(target) {
  const title = target instanceof HTMLElement ? target.closest(".title-text") : null;
  return title instanceof HTMLElement ? title : undefined;
}

/** @param {EventTarget | null} target */
function editField(target) {
  return target instanceof HTMLInputElement && target.classList.contains("edit-input") ? target : undefined;
}

/** @param {HTMLElement} from the title or the Edit button, where the focus goes back when the edit ends */
function startEdit(from) {
  const li = from.closest("li");
  const input = li?.querySelector(".edit-input");
  const edit = li?.querySelector("[data-action=edit]");
  const seen = taskOf(idOf(from));
  // A task that may not be written (a read-only token, a deletion waiting) has its Edit button off.
  if (!(input instanceof HTMLInputElement) || li === null || seen === undefined) return;
  if (!(edit instanceof HTMLButtonElement) || edit.disabled) return;
  editing.set(seen.id, seen);
  began.set(seen.id, from);
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
 * @param {boolean} refocus whether focus goes back to where the edit began
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
 * @param {boolean} refocus whether focus goes back to where the edit began
 */
function endEdit(input, refocus) {
  const id = idOf(input);
  const from = began.get(id);
  editing.delete(id);
  began.delete(id);
  input.closest("li")?.classList.remove("editing");
  input.hidden = true;
  // Hidden, it need not hold on to a title that may be a megabyte.
  input.value = "";
  if (refocus) from?.focus();
}
