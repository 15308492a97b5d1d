// The home page's script: the form that adds a task, each once.
// @ts-check
import { byId, say } from "./dom.js";
import { messageOf, newKey, send, tasksUrl } from "./service.js";
import { askForToken, following, refresh, unusable } from "./sync.js";

/** @typedef {{ title: string, completed: boolean }} NewTask */

const addForm = byId("add-form", HTMLFormElement);
const titleInput = byId("title", HTMLInputElement);
const completedInput = byId("completed", HTMLInputElement);
const addStatus = byId("add-status", HTMLParagraphElement);
const addError = byId("add-error", HTMLParagraphElement);
let adding = false;
let addAfterToken = false;
// The key of the task being added: sent again with the same task until the service has answered,
// so a second click or a retry after a lost answer adds it once.
/** @type {(NewTask & { key: string }) | null} */
let pending = null;

/** Adds the task of each submit of the form, one at a time. */
export function addTasks() {
  addForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!adding) submit();
  });
}

/** Adds the task that a 401 stopped, now that there is a token. */
export function resumeAdd() {
  if (!addAfterToken) return;
  addAfterToken = false;
  addForm.requestSubmit();
}

async function submit() {
  adding = true;
  addForm.setAttribute("aria-busy", "true");
  say(addError, "");
  say(addStatus, "");
  try {
    await add({ title: titleInput.value, completed: completedInput.checked });
  } catch (error) {
    if (!unusable(error)) say(addError, "Cannot reach the service: try again, the task will not be added twice");
  } finally {
    adding = false;
    addForm.removeAttribute("aria-busy");
  }
}

/**
 * Sends the task and shows what the service made of it.
 * @param {NewTask} task
 */
async function add(task) {
  const res = await send(tasksUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": keyFor(task) },
    body: JSON.stringify(task),
  });
  if (res.ok) {
    const created = await res.json();
    pending = null;
    addForm.reset();
    titleInput.focus();
    say(addStatus, `Added task ${created.id}`);
    if (!following()) refresh();
  } else if (res.status === 401) {
    addAfterToken = true;
    askForToken(await messageOf(res));
  } else {
    // The service answered: the task was not added, and a new try is a new task.
    if (res.status !== 503) pending = null;
    say(addError, await messageOf(res));
  }
}

/** @param {NewTask} task */
function keyFor(task) {
  if (pending === null || pending.title !== task.title || pending.completed !== task.completed) {
    pending = { ...task, key: newKey() };
  }
  return pending.key;
}
