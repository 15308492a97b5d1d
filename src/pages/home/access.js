// The home page's script: a token that may only read, with which the page shows the list and no controls.
// @ts-check
import { byId, say } from "./dom.js";

const READ_ONLY_KEY = "task-list-read-only";
const LINK_KEY = "task-list-from-link";
const notice = byId("read-only", HTMLParagraphElement);
// Every control that writes, creating a list included, beside each task's own, which rows take from isReadOnly when drawn; a task
// whose deletion waits to be sent keeps its controls off.
const ROW = ".tasks li:not(.deleting)";
const CONTROLS = `#title, #toggle-all, #clear-completed, #new-list-title, #new-list-submit, #rename-list, #delete-list, #share-open, #share-submit, .share-links .revoke, ${ROW} .done-box, ${ROW} .edit, ${ROW} .delete`;
/** What a person on a read link is told, in place of the service's words for a token. */
export const READ_LINK = "This link may only read the list: it is shown, and the controls that change it are off";

/** Whether the kept token is a list key a share link gave, which opens this list's tasks and nothing else. */
export function fromLink() {
  return sessionStorage.getItem(LINK_KEY) !== null;
}

/**
 * Notes whether the kept token came from a share link; the page then hides what only a deployment
 * token may do (renaming, deleting and sharing the list), as the service would answer 403.
 * @param {boolean} link
 */
export function markLink(link) {
  if (link) sessionStorage.setItem(LINK_KEY, "1");
  else sessionStorage.removeItem(LINK_KEY);
  document.body.classList.toggle("list-key", link);
}

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
  document.body.classList.toggle("list-key", fromLink());
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
  const why = fromLink()
    ? READ_LINK
    : `${message}. The lists are shown, and the controls that change them are off until you change the token`;
  say(notice, off ? why : "");
}
