// The home page's service worker: the page as last loaded answers a reload when the network cannot.
// @ts-check

// Only the pages themselves are kept, and network first: online, a page is always the service's
// latest, and the cache answers only when the network fails. The API's answers pass untouched and
// are never kept: a write must reach the service, and the page keeps the list as last seen itself.
const PAGES = "task-list-pages";

/** @typedef {{ request: Request, respondWith(response: Promise<Response>): void }} PageFetch */
/** @typedef {{ waitUntil(done: Promise<unknown>): void }} Lifecycle */
/**
 * The worker's global scope, of which the DOM's types the page is checked with know nothing.
 * @type {{ addEventListener(type: string, listener: (event: any) => void): void,
 *   skipWaiting(): Promise<void>, clients: { claim(): Promise<void> } }}
 */
const worker = /** @type {any} */ (self);

// A new version takes over at once: it serves the same pages, so there is nothing to wait for.
worker.addEventListener("install", (/** @type {Lifecycle} */ event) => event.waitUntil(worker.skipWaiting()));
worker.addEventListener("activate", (/** @type {Lifecycle} */ event) => event.waitUntil(worker.clients.claim()));
worker.addEventListener("fetch", (/** @type {PageFetch} */ event) => {
  if (event.request.mode === "navigate" && event.request.method === "GET") event.respondWith(page(event.request));
});

/**
 * The page from the service, kept for later; the one kept, when the service cannot be reached.
 * @param {Request} request
 */
async function page(request) {
  // The page ignores a query string, and so does what is kept of it.
  const url = new URL(request.url);
  const key = `${url.origin}${url.pathname}`;
  const cache = await caches.open(PAGES);
  try {
    const response = await fetch(request);
    const html = response.headers.get("Content-Type")?.startsWith("text/html") === true;
    if (response.status === 200 && html) await cache.put(key, response.clone());
    // A list deleted, or never made: no page of it to show later.
    else if (response.status === 404 || response.status === 410) await cache.delete(key);
    return response;
  } catch (error) {
    const kept = await cache.match(key);
    if (kept === undefined) throw error;
    return kept;
  }
}
