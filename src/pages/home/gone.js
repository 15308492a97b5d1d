// The home page's script: the list this page shows was deleted, so the page says so and reads it no more.
// @ts-check
import { byId, say } from "./dom.js";
import { forgetSeen } from "./offline.js";
import { dropWaiting, waiting } from "./outbox.js";

const app = byId("app", HTMLElement);
const goneNotice = byId("list-gone", HTMLParagraphElement);
let gone = false;
/** @type {(() => void)[]} */
const whenGone = [];

/** Whether the list this page shows was deleted: then nothing is read from it or sent to it again. */
export function isGone() {
  return gone;
}

/**
 * Runs `then` once the list is found deleted, as showing the lists there are now.
 * @param {() => void} then
 */
export function afterGone(then) {
  whenGone.push(then);
}

/**
 * Shows that the list was deleted, in place of its tasks, and drops the writes that waited for it:
 * they have nothing left to be sent to. A list of the same name created later is another list.
 */
export function listGone() {
  if (gone) return;
  gone = true;
  const unsent = waiting().length;
  dropWaiting();
  forgetSeen();
  // The focus, if it was on the list's controls, goes to the lists, where a person goes next.
  const hadFocus = app.contains(document.activeElement);
  app.hidden = true;
  if (hadFocus) byId("new-list-title", HTMLInputElement).focus();
  const lost = unsent === 0 ? "" : ` ${unsent === 1 ? "1 change" : `${unsent} changes`} made here could not be sent.`;
  say(goneNotice, `This list was deleted, and its tasks with it.${lost} Choose another list, or create one.`);
  for (const then of whenGone) then();
}
