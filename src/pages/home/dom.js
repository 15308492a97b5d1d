// The home page's script: finding the elements of its markup and showing messages in them.
// @ts-check

/**
 * The element of index.html with this id, which must be of this type.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
export function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new TypeError(`The page has no element ${id} of the type its script needs`);
  return element;
}

/**
 * Shows a message in an element, or hides the element when there is none.
 * @param {HTMLElement} element
 * @param {string} text
 */
export function say(element, text) {
  element.textContent = text;
  element.hidden = text === "";
}

// How long a passing message stays: long enough to read, short enough that none piles up.
const MESSAGE_MS = 5000;
const messageText = byId("message-text", HTMLSpanElement);
const undoButton = byId("undo", HTMLButtonElement);
let messageTimer = 0;
/** @type {(() => void) | null} */
let onUndo = null;
/** @type {(() => void) | null} */
let onExpire = null;

/**
 * Shows one passing message in place of the last, and clears it after a few seconds. With `undo`,
 * it has an Undo button that calls it; `expire` runs when the message goes without being undone,
 * also when another message takes its place.
 * @param {string} text
 * @param {{ undo?: () => void, expire?: () => void }} [actions]
 */
export function notify(text, { undo, expire } = {}) {
  settle();
  clearTimeout(messageTimer);
  messageText.textContent = text;
  onUndo = undo ?? null;
  onExpire = expire ?? null;
  undoButton.hidden = onUndo === null;
  messageTimer = setTimeout(() => {
    settle();
    messageText.textContent = "";
    undoButton.hidden = true;
  }, MESSAGE_MS);
}

/** Runs what waits for the message to go, once: now, as the page is being closed. */
export function settle() {
  const expire = onExpire;
  onExpire = null;
  onUndo = null;
  expire?.();
}

undoButton.addEventListener("click", () => {
  const undo = onUndo;
  onExpire = null;
  onUndo = null;
  clearTimeout(messageTimer);
  messageText.textContent = "";
  undoButton.hidden = true;
  undo?.();
});
