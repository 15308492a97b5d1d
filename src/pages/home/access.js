// The home page's script: a token that may only read, with which the page shows the list and no controls.
// @ts-check
import { byId, say } from "./dom.js";

const READ_ONLY_KEY = "task-list-read-only";
const notice = byId("read-only", HTMLParagraphElement);
// Every control that writes, creating a list included, beside each task's own, which rows take from isReadOnly when drawn; a task
// whose deletion waits to be sent keeps its controls off.
const ROW = ".tasks li:not(.deleting)";
const CONTROLS = `#title, #toggle-all, #clear-completed, #new-list-title, #new-list-submit, #rename-list, #delete-list, ${ROW} .done-box, ${ROW} .edit, ${ROW} .delete`;

/** Whether the kept token may only read: the service answered a write with 403. */
export function isReadOnly() {
  return document.body.classList.contains("read-only");
}

/**
 * Turns the page's writing controls off, saying why, for as long as this token is kept.
 * @param {string} message the service's words for the 403
 */
export function readOnly(message) {
  sessionStorage.setItem(READ_ONLY_KEY, message);
  showControls(message);
}

/** Turns the controls back on: the token changed, or was forgotten. */
export function writable() {
  sessionStorage.removeItem(READ_ONLY_KEY);
  showControls("");
}

/** Shows the page as the kept token allows, after a reload too. */
export function showAccess() {
  showControls(sessionStorage.getItem(READ_ONLY_KEY) ?? "");
}

/** @param {string} message "" when the page may write */
function showControls(message) {
  const off = message !== "";
  document.body.classList.toggle("read-only", off);
  for (const control of document.querySelectorAll(CONTROLS)) {
    if (control instanceof HTMLInputElement || control instanceof HTMLButtonElement) control.disabled = off;
  }
  // A title is reached by Tab only while Enter on it may edit it.
  for (const title of document.querySelectorAll(`${ROW} .title-text`)) {
    if (title instanceof HTMLElement) title.tabIndex = off ? -1 : 0;
  }
  say(
    notice,
    off ? `${message}. The lists are shown, and the controls that change them are off until you change the token` : "",
  );
}
