// The home page's script: the Share panel, which makes links to the list, copies them, shows and revokes them.
// @ts-check
import { isReadOnly } from "./access.js";
import { byId, say } from "./dom.js";
import { afterGone, listGone } from "./gone.js";
import { listUrl, messageOf, send } from "./service.js";
import { askForToken, unusable } from "./sync.js";

/** A list key as the service lists it: never the key itself, which only its creation answers. */
/** @typedef {{ id: string, access: string, label: string, expires: string | null }} ListKey */

const DAY_MS = 86_400_000;
const keysUrl = `${listUrl}/keys`;
const openButton = byId("share-open", HTMLButtonElement);
const panel = byId("share", HTMLElement);
const form = byId("share-form", HTMLFormElement);
const labelField = byId("share-label", HTMLInputElement);
const accessField = byId("share-access", HTMLSelectElement);
const expiresField = byId("share-expires", HTMLSelectElement);
const shareError = byId("share-error", HTMLParagraphElement);
const made = byId("share-made", HTMLDivElement);
const linkField = byId("share-link", HTMLInputElement);
const copyButton = byId("share-copy", HTMLButtonElement);
const copied = byId("share-copied", HTMLParagraphElement);
const linkRows = byId("share-links", HTMLUListElement);
const noLinks = byId("share-none", HTMLParagraphElement);
const shareStatus = byId("share-status", HTMLParagraphElement);
/** The key whose link the field shows: it goes from the field once revoked. @type {string | null} */
let madeId = null;

/** The Share button and its panel. */
export function shareList() {
  openButton.addEventListener("click", () => (panel.hidden ? openPanel() : closePanel()));
  byId("share-close", HTMLButtonElement).addEventListener("click", closePanel);
  panel.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    closePanel();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (form.getAttribute("aria-busy") !== "true") makeLink();
  });
  copyButton.addEventListener("click", copyLink);
  afterGone(hidePanel);
}

function openPanel() {
  panel.hidden = false;
  openButton.setAttribute("aria-expanded", "true");
  say(shareError, "");
  labelField.focus();
  readLinks();
}

/** Closes the panel, and gives the focus back to Share. */
function closePanel() {
  hidePanel();
  openButton.focus();
}

// A new link is shown once: closing the panel lets it go, as the service keeps no copy of it.
function hidePanel() {
  panel.hidden = true;
  openButton.setAttribute("aria-expanded", "false");
  forgetMade();
}

function forgetMade() {
  madeId = null;
  linkField.value = "";
  made.hidden = true;
}

async function readLinks() {
  try {
    const res = await send(keysUrl);
    if (await shareRefused(res)) return;
    /** @type {ListKey[]} */
    const keys = await res.json();
    linkRows.replaceChildren(...keys.map(row));
    noLinks.hidden = keys.length > 0;
  } catch (error) {
    if (!unusable(error)) say(shareError, "Could not reach the service: the links cannot be shown now");
  }
}

/** Makes a key with the form's label, access and expiry, and shows its link with a button that copies it. */
async function makeLink() {
  /** @type {Record<string, string>} */
  const asked = { access: accessField.value, label: labelField.value.trim() };
  const days = Number(expiresField.value);
  if (days > 0) asked.expires = new Date(Date.now() + days * DAY_MS).toISOString();
  form.setAttribute("aria-busy", "true");
  say(shareError, "");
  try {
    const res = await send(keysUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(asked),
    });
    if (await shareRefused(res)) return;
    /** @type {ListKey & { key: string }} */
    const key = await res.json();
    madeId = key.id;
    linkField.value = `${location.origin}${listUrl}/#key=${key.key}`;
    made.hidden = false;
    say(copied, "");
    form.reset();
    linkRows.append(row(key));
    noLinks.hidden = true;
    copyButton.focus();
  } catch (error) {
    if (!unusable(error)) say(shareError, "Could not reach the service: no link was made");
  } finally {
    form.removeAttribute("aria-busy");
  }
}

// Where the browser refuses the clipboard (a page over plain HTTP, a permission denied), the link
// is selected in its field, for the person to copy themselves.
async function copyLink() {
  try {
    await navigator.clipboard.writeText(linkField.value);
    say(copied, "Copied the link");
  } catch {
    linkField.focus();
    linkField.select();
    say(copied, "The browser did not let the page copy: the link is selected in the field, copy it from there");
  }
}

/**
 * One link as the panel lists it: its label, what it opens, until when, and its Revoke button.
 * @param {ListKey} key
 */
function row(key) {
  const item = document.createElement("li");
  const name = document.createElement("span");
  name.className = "share-name";
  name.textContent = key.label === "" ? "No label" : key.label;
  const about = document.createElement("span");
  about.className = "share-about";
  about.textContent = `${key.access === "write" ? "Read and write" : "Read only"}, ${expiry(key.expires)}`;
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.className = "quiet revoke";
  revoke.textContent = "Revoke";
  revoke.setAttribute("aria-label", `Revoke ${named(key)}`);
  revoke.disabled = isReadOnly();
  revoke.addEventListener("click", () => revokeLink(key, item));
  item.append(name, about, revoke);
  return item;
}

/** @param {string | null} expires */
function expiry(expires) {
  if (expires === null) return "never expires";
  const when = new Date(expires);
  return `${when.getTime() <= Date.now() ? "expired" : "expires"} ${when.toLocaleString()}`;
}

/** @param {ListKey} key */
function named(key) {
  return key.label === "" ? `the ${key.access} link without a label` : `the link “${key.label}”`;
}

/**
 * Revokes a link: from the service's 204 on it opens nothing. One already gone (404) goes from the panel too.
 * @param {ListKey} key
 * @param {HTMLLIElement} item
 */
async function revokeLink(key, item) {
  try {
    const res = await send(`${keysUrl}/${key.id}`, { method: "DELETE" });
    if (res.status !== 404 && (await shareRefused(res))) return;
    // The focus goes to the next link's Revoke, or where a new link is made once none is left.
    const next = item.nextElementSibling ?? item.previousElementSibling;
    item.remove();
    if (key.id === madeId) forgetMade();
    noLinks.hidden = linkRows.childElementCount > 0;
    say(shareStatus, `Revoked ${named(key)}`);
    (next?.querySelector("button") ?? labelField).focus();
  } catch (error) {
    if (!unusable(error)) say(shareError, "Could not reach the service: the link was not revoked");
  }
}

/**
 * Says why the service refused a request of the panel's; false when it did not.
 * @param {Response} res
 */
async function shareRefused(res) {
  if (res.ok) return false;
  const message = await messageOf(res);
  if (res.status === 410 || res.status === 404) listGone();
  else if (res.status === 401) {
    hidePanel();
    askForToken(message);
  } else say(shareError, message);
  return true;
}
