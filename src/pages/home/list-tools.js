// The home page's script: renaming the list this page shows, and deleting it, undone for 5 seconds.
// @ts-check
import { readOnly } from "./access.js";
import { byId, notify, say } from "./dom.js";
import { afterGone, listGone } from "./gone.js";
import { listTitle, readLists, showListTitle } from "./lists.js";
import { listName, listUrl, messageOf, send } from "./service.js";
import { askForToken, unusable } from "./sync.js";

const tools = byId("list-tools", HTMLDivElement);
const renameButton = byId("rename-list", HTMLButtonElement);
const deleteButton = byId("delete-list", HTMLButtonElement);
const renameForm = byId("rename-form", HTMLFormElement);
const titleField = byId("list-title-field", HTMLInputElement);
const renameError = byId("rename-error", HTMLParagraphElement);
const listCard = byId("app", HTMLElement);
/** The list's title when renaming began: the new one is written only over it. @type {string | null} */
let renaming = null;

/** The list's Rename and Delete buttons; the default list has no Delete, as the service keeps it always. */
export function listTools() {
  deleteButton.hidden = listName === "default";
  renameButton.addEventListener("click", startRename);
  renameForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (renameForm.getAttribute("aria-busy") !== "true") saveRename();
  });
  titleField.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    endRename();
  });
  byId("cancel-rename", HTMLButtonElement).addEventListener("click", endRename);
  deleteButton.addEventListener("click", deleteList);
  afterGone(() => {
    renaming = null;
    renameForm.hidden = true;
    tools.hidden = true;
  });
}

function startRename() {
  renaming = listTitle() ?? "";
  titleField.value = renaming;
  say(renameError, "");
  tools.hidden = true;
  renameForm.hidden = false;
  titleField.focus();
  titleField.setSelectionRange(titleField.value.length, titleField.value.length);
}

/** Closes the field, and gives the focus back to Rename list. */
function endRename() {
  renaming = null;
  renameForm.hidden = true;
  tools.hidden = false;
  renameButton.focus();
}

/** Writes the field's title, trimmed, over the list's title as it was when renaming began. */
async function saveRename() {
  const title = titleField.value.trim();
  if (title === "") {
    say(renameError, "Give the list a title");
    titleField.focus();
    return;
  }
  if (title === renaming) return endRename();
  renameForm.setAttribute("aria-busy", "true");
  say(renameError, "");
  try {
    const read = await send(listUrl);
    if (await refused(read)) return;
    /** @type {{ title: string }} */
    const now = await read.json();
    if (now.title !== renaming) return renamedElsewhere(now.title);
    const res = await send(listUrl, {
      method: "PATCH",
      headers: { "Content-Type": "application/merge-patch+json", "If-Match": read.headers.get("ETag") ?? "" },
      body: JSON.stringify({ title }),
    });
    if (res.status === 412) {
      const again = await send(listUrl);
      if (!(await refused(again))) renamedElsewhere((await again.json()).title);
    } else if (!(await refused(res))) {
      showListTitle((await res.json()).title);
      endRename();
      readLists();
    }
  } catch (error) {
    if (!unusable(error)) say(renameError, "Could not reach the service: try again once it is back");
  } finally {
    renameForm.removeAttribute("aria-busy");
  }
}

/**
 * Nothing was written: the title typed stays in the field, to be saved over the list's title as it now is or let go.
 * @param {string} title
 */
function renamedElsewhere(title) {
  renaming = title;
  showListTitle(title);
  say(
    renameError,
    `This list was renamed elsewhere: it is now “${title}”. Your title is still in the field: Enter saves it, Escape keeps theirs`,
  );
  titleField.focus();
}

/**
 * Says why the service refused a read or a write of the list; false when it did not.
 * @param {Response} res
 */
async function refused(res) {
  if (res.ok) return false;
  if (res.status === 410 || res.status === 404) listGone();
  else if (res.status === 401) askForToken(await messageOf(res));
  else if (res.status === 403) readOnly(await messageOf(res));
  else say(renameError, await messageOf(res));
  return true;
}

/** Takes the list off the page at once, and deletes it once the message offering to undo it goes. */
function deleteList() {
  const title = listTitle() ?? "";
  showDeleted(true);
  notify(`Deleted the list “${title}”`, {
    undo: () => {
      showDeleted(false);
      deleteButton.focus();
    },
    expire: deleteListNow,
  });
  // Its button went with the list: the focus goes where the person may take it back.
  byId("undo", HTMLButtonElement).focus();
}

/** @param {boolean} deleted */
function showDeleted(deleted) {
  listCard.hidden = deleted;
  tools.hidden = deleted;
}

/** Sends the DELETE, kept alive so that it reaches the service even when the page is being closed. */
async function deleteListNow() {
  try {
    const res = await send(listUrl, { method: "DELETE", keepalive: true });
    if (res.status === 204 || res.status === 410 || res.status === 404) return listGone();
    showDeleted(false);
    if (res.status === 401) askForToken(await messageOf(res));
    else if (res.status === 403) readOnly(await messageOf(res));
    else notify(`The list was not deleted: ${await messageOf(res)}`);
  } catch (error) {
    showDeleted(false);
    if (!unusable(error)) notify("Could not reach the service: the list was not deleted");
  }
}
