// The home page's script: keeps the list shown current, following the list's events or polling it.
// @ts-check
import { fromLink } from "./access.js";
import { byId, say } from "./dom.js";
import { isGone, listGone } from "./gone.js";
import { clear, put, remove, render } from "./list.js";
import { seenRead } from "./offline.js";
import { BadToken, dropToken, eventsUrl, messageOf, send, tasksUrl } from "./service.js";
import { showTokenForm, waitingForToken } from "./token.js";

/** @typedef {import("./list.js").Task} Task */

const POLL_MS = 2000;
// How long the page waits before it asks for the stream again, while it polls instead.
const RETRY_STREAM_MS = 5000;
const listStatus = byId("list-status", HTMLParagraphElement);
/** @type {string | null} */
let etag = null;
let timer = 0;
/** @type {Promise<void> | null} */
let loading = null;
let loadAgain = false;
/** @type {AbortController | null} */
let streaming = null;
let streamRetryAt = 0;
// The highest id a task can have, and so the largest cursor the service takes.
const HIGHEST_ID = 999_999_999_999_999;

/** Whether the page follows the list's events, which show every task added without a read. */
export function following() {
  return streaming !== null;
}

// A share link's key is refused only once it was revoked, expired or died with its list: the
// service's words for an unknown token would say nothing of that to a person who was given a link.
const LINK_ENDED =
  "This link was revoked or has expired: ask whoever shared it for a new one, or give a token to open the list";

/**
 * Whether the token last dropped was a share link's, and none was given or forgotten since: a
 * request refused after it (a write sent as the stream told of the revocation) says so too.
 */
let linkEnded = false;

/**
 * Drops the kept token, stops following the list and asks for a token, saying why.
 * @param {string} message
 */
export function askForToken(message) {
  linkEnded ||= fromLink();
  dropToken();
  stopStream();
  showTokenForm(linkEnded ? LINK_ENDED : message);
}

/**
 * A kept token that cannot be sent is dropped, and a new one asked for.
 * @param {unknown} error
 */
export function unusable(error) {
  if (!(error instanceof BadToken)) return false;
  askForToken("That token cannot be sent: use the token you were given, letters, digits and -._~+/ only");
  return true;
}

function schedule() {
  clearTimeout(timer);
  if (!document.hidden && streaming === null && !waitingForToken() && !isGone()) timer = setTimeout(refresh, POLL_MS);
}

/** One read at a time: a refresh asked for during a read runs right after it, so answers never arrive out of order. */
export function refresh() {
  clearTimeout(timer);
  if (waitingForToken() || streaming !== null || isGone()) return;
  if (loading !== null) {
    loadAgain = true;
    return;
  }
  loading = load().finally(() => {
    loading = null;
    if (loadAgain) {
      loadAgain = false;
      refresh();
    }
  });
}

/** Follows the stream when it can be had, else reads the list once and polls. */
async function load() {
  try {
    if (Date.now() < streamRetryAt || !(await follow())) await poll();
  } catch (error) {
    if (unusable(error)) return;
    say(listStatus, "Could not reach the service; trying again");
  }
  schedule();
}

// Each poll takes the whole list, with If-None-Match: tasks after an id would miss edits and
// deletions, and a list replaced meanwhile (a memory store whose process restarted).
/** @returns {Promise<boolean>} whether the page now shows the list as the service holds it */
async function poll() {
  const res = await send(tasksUrl, { headers: etag === null ? {} : { "If-None-Match": etag } });
  if (res.status === 401) {
    askForToken(await messageOf(res));
    return false;
  }
  if (res.status === 410) {
    listGone();
    return false;
  }
  if (res.status === 200) {
    render(await res.json());
    etag = res.headers.get("ETag");
  } else if (res.status !== 304) {
    say(listStatus, `Could not read the list: ${await messageOf(res)}`);
    return false;
  }
  seenRead();
  say(listStatus, "");
  return true;
}

/**
 * Opens /tasks/events through fetch, which, unlike EventSource, can send the token, from the list's
 * change number as it is now: the events then carry what changes from here on, not the whole list.
 * Once it is open, the page reads the whole list while the stream's events wait, then applies them
 * on top: the page shows the list as it is even if it was replaced (a memory store whose process
 * restarted), and a change made around the read is one of the events, not lost.
 * @returns {Promise<boolean>} false when the stream cannot be had for now: the page polls a while
 *   before it asks again
 */
async function follow() {
  const controller = new AbortController();
  const opened = Date.now();
  const res = await subscribe(controller.signal);
  if (res?.status === 401) {
    askForToken(await messageOf(res));
    return true;
  }
  if (res?.status === 410) {
    listGone();
    return true;
  }
  if (res?.status !== 200 || res.body === null) {
    controller.abort();
    streamRetryAt = Date.now() + RETRY_STREAM_MS;
    return false;
  }
  const body = res.body;
  let read = false;
  try {
    // Without If-None-Match: a replaced list may carry an ETag its predecessor once had.
    etag = null;
    read = await poll();
  } finally {
    if (!read) controller.abort();
  }
  if (read) {
    streaming = controller;
    readStream(body).then(
      () => endStream(controller, opened),
      (error) => {
        if (!unusable(error)) endStream(controller, opened);
      },
    );
  }
  return true;
}

/**
 * Asks for the events after the list's change number as it is now: the tasks after the highest id
 * there can be are none, and come with the list's ETag, which names that change number.
 * @param {AbortSignal} signal
 * @returns {Promise<Response | undefined>} the stream, or the response that refused it; undefined
 *   when the service cannot be reached
 */
async function subscribe(signal) {
  const now = await send(`${tasksUrl}?after=${HIGHEST_ID}`).catch(unreachable);
  if (now === undefined || now.status === 401 || now.status === 410) return now;
  return send(`${eventsUrl}?after=${changeOf(now.headers.get("ETag"))}`, { signal }).catch(unreachable);
}

/**
 * A request the service did not answer: the page polls, and says so if that fails too.
 * @param {unknown} error
 * @returns {undefined}
 */
function unreachable(error) {
  if (error instanceof BadToken) throw error;
  return undefined;
}

/**
 * The change number a list's ETag names: its version is `<instance>-<change number>`, and a proxy
 * may have made it weak. 0 when it names none, which asks for the whole list as events.
 * @param {string | null} tag
 */
function changeOf(tag) {
  const change = /^(?:W\/)?"[^"]*-(\d{1,15})"$/.exec(tag ?? "")?.[1];
  return change === undefined ? 0 : Number(change);
}

/** @param {ReadableStream<BufferSource>} body */
async function readStream(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    text += value;
    for (let end = text.indexOf("\n\n"); end !== -1; end = text.indexOf("\n\n")) {
      apply(text.slice(0, end).split("\n"));
      text = text.slice(end + 2);
    }
  }
}

/**
 * Applies one event by task id, which keeps the list exactly as the service holds it.
 * @param {string[]} lines
 */
function apply(lines) {
  /** @type {(prefix: string) => string | undefined} */
  const field = (prefix) => lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);
  const kind = field("event: ");
  const data = field("data: ");
  // The list was deleted: the stream ends after this, and reading the list again would answer 410.
  if (kind === "gone") {
    listGone();
    return;
  }
  // The key the stream was opened with was revoked or expired: the stream ends after this.
  if (kind === "revoked") {
    askForToken("The token this page used was revoked");
    return;
  }
  if (kind === "reset") {
    clear();
    etag = null;
    return;
  }
  if (data === undefined) return;
  if (kind === "delete") remove(JSON.parse(data).id);
  else if (kind === "task" || kind === "update") put(JSON.parse(data));
}

/**
 * A stream that ends soon after it opened cannot be had for now: the page polls a while before it
 * asks again. One that served a while (a server restarted) is asked for again at once.
 * @param {AbortController} controller
 * @param {number} opened
 */
function endStream(controller, opened) {
  if (streaming !== controller) return;
  streaming = null;
  // The list may have been replaced meanwhile, under an ETag that names another list: read it whole.
  etag = null;
  if (Date.now() - opened < RETRY_STREAM_MS) streamRetryAt = Date.now() + RETRY_STREAM_MS;
  if (!controller.signal.aborted) refresh();
}

export function stopStream() {
  streaming?.abort();
  streaming = null;
}

/** Reads the list anew, as the kept token now allows: the stream opened with another token ends. */
export function restart() {
  linkEnded = false;
  stopStream();
  etag = null;
  refresh();
}
