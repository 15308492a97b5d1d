// The home page's script: the new-task field, which adds each task once.
// @ts-check
import { readOnly } from "./access.js";
import { byId, say } from "./dom.js";
import { localIdOf, queue } from "./outbox.js";
import { messageOf, newKey, sendTask, tasksUrl } from "./service.js";
import { askForToken, following, refresh, unusable } from "./sync.js";
import { shortTitle } from "./title.js";

/**
 * A task entered in the field and not yet settled: its title as typed and trimmed, and the key it
 * is sent with each time, so a retry after a lost answer adds it once. `tried` says whether it may
 * have reached the service.
 * @typedef {{ typed: string, title: string, key: string, tried: boolean }} Entered
 */

const addForm = byId("add-form", HTMLFormElement);
const titleInput = byId("title", HTMLInputElement);
const addError = byId("add-error", HTMLParagraphElement);
/** The tasks entered, in the order they were: each is sent once the one before it is settled. @type {Entered[]} */
const entered = [];
let adding = false;
let addAfterToken = false;

/**
 * Adds the task of each Enter in the field, its title trimmed; an empty one adds nothing. The field
 * is emptied for the next task at once, so a person typing fast loses none while one is sent.
 */
export function addTasks() {
  titleInput.addEventListener("input", () => say(addError, ""));
  addForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = titleInput.value;
    const title = typed.trim();
    if (title === "") return;
    entered.push({ typed, title, key: newKey(), tried: false });
    // The field alone: the form holds Mark all too, which a reset would untick.
    titleInput.value = "";
    say(addError, "");
    addEntered();
  });
  // A page closed before its adds were settled keeps them in the outbox, sent from there with their
  // keys: one that reached the service is added once all the same.
  addEventListener("pagehide", () => waitInOutbox());
}

/** Adds the tasks that a 401 stopped, now that there is a token. */
export function resumeAdd() {
  if (!addAfterToken) return;
  addAfterToken = false;
  addEntered();
}

/** Sends the tasks entered, one at a time and in order, until none is left or they have to wait. */
async function addEntered() {
  if (adding || addAfterToken) return;
  adding = true;
  addForm.setAttribute("aria-busy", "true");
  try {
    for (let next = entered[0]; next !== undefined && !addAfterToken; next = entered[0]) await add(next);
  } catch (error) {
    // A kept token that cannot be sent: they are sent once another is given.
    if (unusable(error)) addAfterToken = true;
    // Out of reach (or a 503): each waits in the outbox with its key, in order, and is added once
    // when the service is back.
    else waitInOutbox();
  } finally {
    adding = false;
    addForm.removeAttribute("aria-busy");
  }
}

/** Moves the tasks entered to the outbox, in order, each with its key. */
function waitInOutbox() {
  for (const { key, title, tried } of entered.splice(0)) queue({ kind: "add", key, title, id: localIdOf(key), tried });
}

/**
 * Sends the first task entered and shows what the service made of it; throws when it cannot reach it.
 * @param {Entered} task
 */
async function add(task) {
  // Offline, nothing is tried: the add waits as one that never left the page.
  if (!navigator.onLine) throw new Error("Offline");
  task.tried = true;
  const res = await sendTask(tasksUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": task.key },
    body: JSON.stringify({ title: task.title, completed: false }),
  });
  if (res.status === 401) {
    addAfterToken = true;
    askForToken(await messageOf(res));
    return;
  }
  // Settled: unless the page was closed meanwhile and the outbox took it, it is the first entered.
  if (entered[0] === task) entered.shift();
  if (res.ok) {
    if (!following()) refresh();
    return;
  }
  // The service answered: the task was not added, and a new try is a new task. Its title goes back
  // in the field to be fixed, unless the person is typing another there.
  const message = await messageOf(res);
  const back = titleInput.value === "";
  if (back) titleInput.value = task.typed;
  if (res.status === 403) readOnly(message);
  else say(addError, back ? message : `“${shortTitle(task.title)}” was not added: ${message}`);
}
