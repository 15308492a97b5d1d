// The home page's script: editing a task's title in place.
// @ts-check
import { note, taskOf } from "./list.js";
import { act, idOf } from "./task-controls.js";
import { shortTitle } from "./title.js";
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

/**
 * @param {HTMLElement} from the title or the Edit button, where the focus goes back when the edit ends
 * @param {string} [typed] what the field holds, the title as the person typed it, not the task's
 * @param {boolean} [focus] whether the field takes the focus: not when the person has gone elsewhere
 */
function startEdit(from, typed, focus = true) {
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
  input.value = typed ?? seen.title;
  li.classList.add("editing");
  li.classList.toggle("conflict", typed !== undefined);
  input.hidden = false;
  if (focus) input.focus();
  // As in TodoMVC, the caret at the end and nothing selected: a stray key adds to the title, not replaces it.
  input.setSelectionRange(input.value.length, input.value.length);
  input.scrollLeft = input.scrollWidth;
}

/**
 * Writes the edited title, trimmed, over the task as it was seen; an empty one deletes the task.
 * @param {HTMLInputElement} input
 * @param {boolean} refocus whether focus goes back to where the edit began
 */
async function save(input, refocus) {
  const id = idOf(input);
  const seen = editing.get(id);
  const from = began.get(id);
  const title = input.value.trim();
  endEdit(input, refocus);
  if (seen === undefined) return;
  if (title === "") return deleteWithUndo([seen]);
  if (title === seen.title) return;
  const now = await act(id, { method: "PATCH", body: { title } }, seen);
  // Changed elsewhere: nothing was written, and what the person typed stays in the field, beside
  // the task as it now is, to be saved over it or let go.
  if (now === undefined || from === undefined || editing.has(id) || !from.isConnected) return;
  startEdit(from, title, refocus);
  note(
    id,
    `This task was changed elsewhere: it now reads “${shortTitle(now.title)}”. Your title is still in the field: Enter saves it, Escape keeps theirs`,
  );
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
  input.closest("li")?.classList.remove("editing", "conflict");
  input.hidden = true;
  // Hidden, it need not hold on to a title that may be a megabyte.
  input.value = "";
  if (refocus) from?.focus();
}
