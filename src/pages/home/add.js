// The home page's script: the new-task field, which adds each task once.
// @ts-check
import { readOnly } from "./access.js";
import { byId, say } from "./dom.js";
import { localIdOf, queue } from "./outbox.js";
import { messageOf, newKey, sendTask, tasksUrl } from "./service.js";
import { askForToken, following, refresh, unusable } from "./sync.js";

/** @typedef {{ title: string, completed: boolean }} NewTask */

const addForm = byId("add-form", HTMLFormElement);
const titleInput = byId("title", HTMLInputElement);
const addError = byId("add-error", HTMLParagraphElement);
let adding = false;
let addAfterToken = false;
// The key of the task being added: sent again with the same task until the service has answered,
// so a second click or a retry after a lost answer adds it once.
/** @type {(NewTask & { key: string, tried: boolean }) | null} */
let pending = null;

/** Adds the task of each Enter in the field, one at a time, its title trimmed; an empty one adds nothing. */
export function addTasks() {
  titleInput.addEventListener("input", () => say(addError, ""));
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
  const title = titleInput.value.trim();
  try {
    if (title !== "") await add({ title, completed: false });
  } catch (error) {
    // Out of reach (or a 503): the task waits in the outbox with its key, and is added once when the service is back.
    if (!unusable(error) && pending !== null) {
      const { key, tried } = pending;
      queue({ kind: "add", key, title: pending.title, id: localIdOf(key), tried });
      pending = null;
      addForm.reset();
    }
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
  const key = keyFor(task);
  // Offline, nothing is tried: the add waits as one that never left the page.
  if (!navigator.onLine) throw new Error("Offline");
  if (pending !== null) pending.tried = true;
  const res = await sendTask(tasksUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": key },
    body: JSON.stringify(task),
  });
  if (res.ok) {
    pending = null;
    addForm.reset();
    titleInput.focus();
    if (!following()) refresh();
  } else if (res.status === 401) {
    addAfterToken = true;
    askForToken(await messageOf(res));
  } else if (res.status === 403) {
    pending = null;
    readOnly(await messageOf(res));
  } else {
    // The service answered: the task was not added, and a new try is a new task.
    pending = null;
    say(addError, await messageOf(res));
  }
}

/** @param {NewTask} task */
function keyFor(task) {
  if (pending === null || pending.title !== task.title || pending.completed !== task.completed) {
    pending = { ...task, key: newKey(), tried: false };
  }
  return pending.key;
}
