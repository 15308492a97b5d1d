// The home page's script: what lets it open offline, its service worker and the list as last seen.
// @ts-check
import { hasToken, keptToken, listName, workerScope, workerUrl } from "./service.js";

/** @typedef {import("./list.js").Task} Task */

// The service worker's cache of pages, by address without its query: see service-worker.js.
const PAGES = "task-list-pages";
const SEEN_KEY = `task-list-seen:${listName}`;
// Writing the list is put off until changes settle, so that a burst of them writes it once.
const SEEN_DELAY_MS = 300;
// Beyond this many characters of titles the list is not kept: localStorage holds a few MB, and the
// outbox needs its room more.
const SEEN_MAX_CHARS = 1_000_000;
let seenTimer = 0;
/**
 * The token the list shown was read with (null for none), once the page knows it as the service
 * has it; undefined until then. A list is kept only under the token it was read with: never one
 * read with a token for the next visit, nor one the page never read.
 * @type {string | null | undefined}
 */
let readWith;
/** Keeps the list now, if it changed since it was last kept. @type {(() => void) | null} */
let seenWaiting = null;

/**
 * Registers the page's service worker, which keeps this page for a reload offline. The page that
 * registers it was loaded before the worker ran, so it is kept here once.
 */
export function keepPageOffline() {
  const workers = navigator.serviceWorker;
  if (workers === undefined) return;
  const first = workers.controller === null;
  // Trusted Types are required: the page's one policy passes the worker's own address, and nothing else.
  // A browser without Trusted Types takes the address as it is.
  /** @type {{ createPolicy(name: string, rules: { createScriptURL(url: string): string }): { createScriptURL(url: string): unknown } } | undefined} */
  const types = /** @type {any} */ (window).trustedTypes;
  const policy = types?.createPolicy("service-worker", {
    createScriptURL: (url) => {
      if (url !== workerUrl) throw new TypeError("Only the service worker's address is a script URL");
      return url;
    },
  });
  const script = /** @type {string} */ (policy?.createScriptURL(workerUrl) ?? workerUrl);
  workers
    .register(script, { scope: workerScope })
    // Behind a proxy that adds a prefix, the base path the service allows is not this one: the
    // worker's own folder is still a scope it may have.
    .catch(() => workers.register(script))
    .then(async () => {
      if (first) await (await caches.open(PAGES)).add(`${location.origin}${location.pathname}`);
    })
    .catch(() => {
      // Without a worker (a page over plain HTTP, a browser that refuses it) the page works, online.
    });
}

/**
 * Where the list as last seen is kept: for this tab only while a token is, since the token was
 * needed to read it, else for the next visit too.
 */
function seenStorage() {
  return hasToken() ? sessionStorage : localStorage;
}

/**
 * The list as this page last saw it, if it was kept.
 * @returns {Task[] | undefined}
 */
export function lastSeen() {
  try {
    const kept = JSON.parse(seenStorage().getItem(SEEN_KEY) ?? "null");
    if (!Array.isArray(kept)) return undefined;
    readWith = keptToken();
    return kept;
  } catch {
    return undefined;
  }
}

/** The list shown is now the service's, as read with the token kept now: from here on it is kept. */
export function seenRead() {
  readWith = keptToken();
}

/**
 * Keeps the list shown, once changes settle, for the next time the page opens.
 * @param {() => Task[]} tasks
 */
export function keepSeen(tasks) {
  clearTimeout(seenTimer);
  seenWaiting = () => {
    clearTimeout(seenTimer);
    seenWaiting = null;
    // Nothing the page never read is kept, nor, once the token changed since the read (forgotten,
    // or another given), what it read with the old one, until the list is read again.
    if (readWith === undefined || readWith !== keptToken()) return;
    const list = tasks();
    const storage = seenStorage();
    let chars = 0;
    for (const task of list) chars += task.title.length;
    try {
      if (chars > SEEN_MAX_CHARS) storage.removeItem(SEEN_KEY);
      else storage.setItem(SEEN_KEY, JSON.stringify(list));
    } catch {
      // Full: a list that cannot be kept whole is not kept at all, so none shows out of date.
      storage.removeItem(SEEN_KEY);
    }
  };
  seenTimer = setTimeout(seenWaiting, SEEN_DELAY_MS);
}

// A page closed or reloaded before changes settled keeps the list as it was last shown all the same.
addEventListener("pagehide", () => seenWaiting?.());

/** Forgets the list as last seen: it was deleted. */
export function forgetSeen() {
  clearTimeout(seenTimer);
  seenWaiting = null;
  readWith = undefined;
  localStorage.removeItem(SEEN_KEY);
  sessionStorage.removeItem(SEEN_KEY);
}
