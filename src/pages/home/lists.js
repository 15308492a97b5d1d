// The home page's script: the deployment's lists, kept current, the one this page shows, and a form that creates one.
// @ts-check
import { readOnly } from "./access.js";
import { byId, say } from "./dom.js";
import { listName, listsUrl, messageOf, newKey, pageOf, send } from "./service.js";
import { askForToken, unusable } from "./sync.js";

/** @typedef {{ name: string, title: string }} List */

// Lists change far less often than tasks and have no events: a read every so often (a 304 when
// nothing changed), and one each time the tab is shown again, keep them current enough.
const LISTS_POLL_MS = 10_000;
const nav = byId("lists", HTMLElement);
const links = byId("list-links", HTMLUListElement);
const heading = byId("list-title", HTMLHeadingElement);
const createForm = byId("new-list", HTMLFormElement);
const createTitle = byId("new-list-title", HTMLInputElement);
const createError = byId("new-list-error", HTMLParagraphElement);
/** @type {string | null} */
let listsEtag = null;
/** @type {string | undefined} */
let shownTitle;
let readingLists = false;
let creating = false;
let createAfterToken = false;
// The key of the list being created: sent again with the same title until the service has answered,
// so a second click or a retry after a lost answer creates it once.
/** @type {{ title: string, key: string } | null} */
let pendingList = null;

/** Shows the lists now and keeps them current, and creates a list from the form. */
export function followLists() {
  createTitle.addEventListener("input", () => say(createError, ""));
  createForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!creating) create();
  });
  setInterval(readLists, LISTS_POLL_MS);
  readLists();
}

/** Reads the lists, with If-None-Match, unless a read is under way or the tab is hidden. */
export async function readLists() {
  if (readingLists || document.hidden) return;
  readingLists = true;
  try {
    const res = await send(listsUrl, { headers: listsEtag === null ? {} : { "If-None-Match": listsEtag } });
    // Anything but 200 or 304 leaves the lists as last shown: a 401 is the list's own read to ask a token for.
    if (res.status === 200) {
      showLists(await res.json());
      listsEtag = res.headers.get("ETag");
    }
  } catch {
    // Out of reach, or a token that cannot be sent: the list's own read says so, and the next try reads them.
  } finally {
    readingLists = false;
  }
}

/** Reads the lists anew, as the kept token now allows, and creates the list a 401 stopped. */
export function restartLists() {
  listsEtag = null;
  readLists();
  if (createAfterToken) {
    createAfterToken = false;
    createForm.requestSubmit();
  }
}

/**
 * Shows a link to each list's page, in the order they were created, the current one marked.
 * @param {List[]} lists
 */
function showLists(lists) {
  links.replaceChildren(...lists.map(linkTo));
  nav.hidden = false;
  const current = lists.find((list) => list.name === listName);
  if (current !== undefined) showListTitle(current.title);
}

/**
 * Shows the title of the list this page shows, in its heading and the tab's title.
 * @param {string} title
 */
export function showListTitle(title) {
  shownTitle = title;
  heading.textContent = titleOf({ name: listName, title });
  document.title = heading.textContent;
}

/** The title of the list this page shows, as the service last said it is; undefined before it said. */
export function listTitle() {
  return shownTitle;
}

/** @param {List} list */
function linkTo(list) {
  const item = document.createElement("li");
  const link = document.createElement("a");
  link.href = pageOf(list.name);
  link.textContent = titleOf(list);
  if (list.name === listName) link.setAttribute("aria-current", "page");
  item.append(link);
  return item;
}

/** @param {List} list */
function titleOf(list) {
  return list.title.trim() === "" ? "Untitled list" : list.title;
}

/** Creates a list of the form's title and goes to its page; an empty title creates nothing. */
async function create() {
  const title = createTitle.value.trim();
  if (title === "") {
    say(createError, "Give the new list a title");
    createTitle.focus();
    return;
  }
  if (pendingList?.title !== title) pendingList = { title, key: newKey() };
  creating = true;
  createForm.setAttribute("aria-busy", "true");
  say(createError, "");
  try {
    const res = await send(listsUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": pendingList.key },
      body: JSON.stringify({ title }),
    });
    if (res.status === 201) {
      /** @type {List} */
      const made = await res.json();
      location.assign(pageOf(made.name));
      return;
    }
    // The service answered: no list was created, and a new try is a new list.
    pendingList = null;
    if (res.status === 401) {
      createAfterToken = true;
      askForToken(await messageOf(res));
    } else if (res.status === 403) readOnly(await messageOf(res));
    else say(createError, await messageOf(res));
  } catch (error) {
    // The key is kept: a retry with the same title is the same list, however far the first got.
    if (!unusable(error)) say(createError, "Could not reach the service: try again once it is back");
  } finally {
    creating = false;
    createForm.removeAttribute("aria-busy");
  }
}
