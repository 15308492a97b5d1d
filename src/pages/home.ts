// The home page for people: one constant document, with the list kept current while it is open.
import type { BodyParts } from "../http/request-duties.ts";

// The page is one constant document: no build step, nothing from other origins, no path of its
// own for scripts or styles (every other path is 404), so both are inline and allowed by hash.

const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --fg: #1b1c20; --muted: #5b5f68; --card: #ffffff; --line: #d5d8de;
  --accent: #1f57c8; --on-accent: #ffffff; --done: #1d6e38; --error-bg: #fdeceb; --error: #8f1d17;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #131418; --fg: #e9eaee; --muted: #a3a8b3; --card: #1d1f25; --line: #363a43;
    --accent: #8cb0ff; --on-accent: #0d1424; --done: #7fd699; --error-bg: #3d1a1a; --error: #ffb8b2;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
main { max-width: 42rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { margin: 0; font-size: 1.75rem; }
h2 { margin: 0 0 0.75rem; font-size: 1.15rem; }
header { display: flex; align-items: baseline; justify-content: space-between; gap: 1rem; margin-bottom: 1.25rem; }
section, #token-form { background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem; padding: 1rem; margin-bottom: 1.25rem; }
#count { color: var(--muted); }
label { font-weight: 600; }
.row { display: flex; flex-wrap: wrap; align-items: end; gap: 0.75rem; }
.field { display: flex; flex-direction: column; gap: 0.25rem; flex: 1 1 14rem; min-width: 0; }
.check { display: flex; align-items: center; gap: 0.5rem; min-height: 2.75rem; }
.check label { font-weight: 400; }
input[type="text"], input[type="password"] {
  font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line);
  border-radius: 0.5rem; padding: 0.5rem 0.75rem; min-height: 2.75rem; width: 100%;
}
input[type="checkbox"] { width: 1.25rem; height: 1.25rem; margin: 0; accent-color: var(--accent); }
button {
  font: inherit; font-weight: 600; color: var(--on-accent); background: var(--accent); border: 0;
  border-radius: 0.5rem; padding: 0.5rem 1.25rem; min-height: 2.75rem; cursor: pointer;
}
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
a { color: var(--accent); }
.error { background: var(--error-bg); color: var(--error); border-radius: 0.5rem; padding: 0.5rem 0.75rem; margin: 0.75rem 0 0; }
#add-status { margin: 0.75rem 0 0; }
#token-message { margin: 0 0 0.75rem; }
.hint { color: var(--muted); margin: 0.75rem 0 0; }
#add-status:empty, #list-status:empty { display: none; }
[hidden] { display: none !important; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 0.5rem 0.5rem; border-top: 1px solid var(--line); vertical-align: top; }
thead th { border-top: 0; color: var(--muted); font-size: 0.875rem; font-weight: 600; }
.id { width: 1%; white-space: nowrap; color: var(--muted); font-variant-numeric: tabular-nums; }
.title { overflow-wrap: anywhere; }
.title:empty::before { content: "(no title)"; font-style: italic; color: var(--muted); }
.state { width: 1%; white-space: nowrap; }
tr.done .title { color: var(--muted); text-decoration: line-through; }
tr.done .state { color: var(--done); font-weight: 600; }
footer { color: var(--muted); font-size: 0.875rem; }
`;

// Plain script for the browser as it is (no build step). Titles only ever go through textContent,
// and the policy's Trusted Types rule makes any HTML sink throw, so a title can never become markup.
const SCRIPT = `
"use strict";
const POLL_MS = 2000;
// How long the page waits before it asks for the stream again, while it polls instead.
const RETRY_STREAM_MS = 5000;
// The page is the base path with or without its trailing slash; the API sits under it either way.
const base = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";
const tasksUrl = base + "tasks";
const eventsUrl = base + "tasks/events";
const TOKEN_KEY = "task-list-token";
// What the service takes as a bearer token (RFC 6750's token68); anything else cannot be sent.
const TOKEN = /^[A-Za-z0-9._~+\\/-]+=*$/;
const byId = (id) => document.getElementById(id);
const rows = byId("tasks");
const count = byId("count");
const listStatus = byId("list-status");
const addForm = byId("add-form");
const titleInput = byId("title");
const completedInput = byId("completed");
const addStatus = byId("add-status");
const addError = byId("add-error");
const tokenForm = byId("token-form");
const tokenInput = byId("token");
const tokenMessage = byId("token-message");
byId("openapi-link").href = base + "openapi.json";
let etag = null;
let shown = [];
let timer = 0;
let loading = null;
let loadAgain = false;
let streaming = null;
let streamRetryAt = 0;
// After a stream ends the page reads the whole list again: the list it followed may have been
// replaced (a memory store whose process restarted), and tasks after an id cannot show that.
let needFull = true;
let adding = false;
let addAfterToken = false;
// The key of the task being added: sent again with the same task until the service has answered,
// so a second click or a retry after a lost answer adds it once.
let pending = null;

function say(element, text) {
  element.textContent = text;
  element.hidden = text === "";
}

// A kept token fetch cannot send (one with a character outside Latin-1) stops the request here.
class BadToken extends Error {}

function withToken(headers) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token === null) return headers;
  if (!TOKEN.test(token)) throw new BadToken();
  return { ...headers, Authorization: "Bearer " + token };
}

// Errors are {"message"} by the contract; anything else (a proxy's error page) is named by its status.
async function messageOf(res) {
  try {
    const body = await res.json();
    if (typeof body.message === "string") return body.message;
  } catch {}
  return "The service answered " + res.status;
}

function askForToken(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  stopStream();
  say(tokenMessage, message);
  tokenForm.hidden = false;
  tokenInput.focus();
}

// A kept token that cannot be sent is dropped, and a new one asked for.
function unusable(error) {
  if (!(error instanceof BadToken)) return false;
  askForToken("That token cannot be sent: use the token you were given, letters, digits and -._~+/ only");
  return true;
}

// The list only grows, so a read that still starts with every task shown only appends rows: a
// long list is laid out once, not again at each change.
function render(tasks) {
  const kept = shown.length <= tasks.length && shown.every((task, i) => sameTask(task, tasks[i])) ? shown.length : 0;
  const fragment = document.createDocumentFragment();
  for (const task of tasks.slice(kept)) fragment.append(row(task));
  if (kept === 0) rows.replaceChildren(fragment);
  else rows.append(fragment);
  shown = tasks;
  showCount();
}

// A task that follows the last one shown, from the stream.
function append(task) {
  if (task.id <= lastId()) return;
  rows.append(row(task));
  shown = [...shown, task];
  showCount();
}

function lastId() {
  return shown.length === 0 ? 0 : shown[shown.length - 1].id;
}

function showCount() {
  count.textContent = shown.length === 1 ? "1 task" : shown.length + " tasks";
}

function row(task) {
  const tr = document.createElement("tr");
  if (task.completed) tr.className = "done";
  tr.append(cell(String(task.id), "id"), cell(task.title, "title"), cell(task.completed ? "Done" : "Not done", "state"));
  return tr;
}

function sameTask(a, b) {
  return a.id === b.id && a.title === b.title && a.completed === b.completed;
}

function cell(text, className) {
  const td = document.createElement("td");
  td.className = className;
  td.textContent = text;
  return td;
}

function schedule() {
  clearTimeout(timer);
  if (!document.hidden && streaming === null) timer = setTimeout(refresh, POLL_MS);
}

// One read at a time: a refresh asked for during a read runs right after it, so answers never arrive out of order.
function refresh() {
  clearTimeout(timer);
  if (!tokenForm.hidden || streaming !== null) return;
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

// The first read, and the first after a stream ends, takes the whole list; the others, while there
// is no stream, only what is new.
async function load() {
  try {
    const after = needFull ? "" : "?after=" + lastId();
    // The page sends If-None-Match itself, and no-store keeps the browser's cache from answering for the server.
    const res = await fetch(tasksUrl + after, {
      cache: "no-store",
      headers: withToken(etag === null ? {} : { "If-None-Match": etag }),
    });
    if (res.status === 401) return askForToken(await messageOf(res));
    if (res.status === 200) {
      const tasks = await res.json();
      if (after === "") render(tasks);
      else for (const task of tasks) append(task);
      etag = res.headers.get("ETag");
      needFull = false;
    } else if (res.status === 304) {
      needFull = false;
    } else {
      say(listStatus, "Could not read the list: " + (await messageOf(res)));
      return schedule();
    }
    say(listStatus, "");
    follow();
  } catch (error) {
    if (unusable(error)) return;
    say(listStatus, "Could not reach the service; trying again");
  }
  schedule();
}

// Follows /tasks/events through fetch, which, unlike EventSource, can send the token. While the
// stream cannot be had, the page polls, and asks for the stream again now and then.
function follow() {
  if (streaming !== null || !tokenForm.hidden || Date.now() < streamRetryAt) return;
  const controller = new AbortController();
  streaming = controller;
  clearTimeout(timer);
  const opened = Date.now();
  readStream(controller.signal).then(
    () => endStream(controller, opened),
    (error) => {
      if (!unusable(error)) endStream(controller, opened);
    },
  );
}

async function readStream(signal) {
  const res = await fetch(eventsUrl + "?after=" + lastId(), { cache: "no-store", headers: withToken({}), signal });
  if (res.status === 401) return askForToken(await messageOf(res));
  if (res.status !== 200 || res.body === null) return;
  say(listStatus, "");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    text += value;
    for (let end = text.indexOf("\\n\\n"); end !== -1; end = text.indexOf("\\n\\n")) {
      const event = text.slice(0, end).split("\\n");
      text = text.slice(end + 2);
      const data = event.find((line) => line.startsWith("data: "));
      if (data !== undefined) append(JSON.parse(data.slice(6)));
    }
  }
}

// A stream that ends soon after it opened cannot be had for now: the page polls a while before it
// asks again. One that served a while (a server restarted) is asked for again at once.
function endStream(controller, opened) {
  if (streaming !== controller) return;
  streaming = null;
  needFull = true;
  if (Date.now() - opened < RETRY_STREAM_MS) streamRetryAt = Date.now() + RETRY_STREAM_MS;
  if (!controller.signal.aborted) refresh();
}

function stopStream() {
  streaming?.abort();
  streaming = null;
}

// A key of 32 hex digits from the browser's random source, which pages over plain HTTP have too.
function newKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

addForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (adding) return;
  adding = true;
  addForm.setAttribute("aria-busy", "true");
  say(addError, "");
  say(addStatus, "");
  const task = { title: titleInput.value, completed: completedInput.checked };
  if (pending === null || pending.title !== task.title || pending.completed !== task.completed) {
    pending = { ...task, key: newKey() };
  }
  try {
    const res = await fetch(tasksUrl, {
      method: "POST",
      cache: "no-store",
      headers: withToken({ "Content-Type": "application/json", "Idempotency-Key": pending.key }),
      body: JSON.stringify(task),
    });
    if (res.ok) {
      const created = await res.json();
      pending = null;
      addForm.reset();
      titleInput.focus();
      say(addStatus, "Added task " + created.id);
      if (streaming === null) refresh();
    } else if (res.status === 401) {
      addAfterToken = true;
      askForToken(await messageOf(res));
    } else {
      // The service answered: the task was not added, and a new try is a new task.
      if (res.status !== 503) pending = null;
      say(addError, await messageOf(res));
    }
  } catch (error) {
    if (!unusable(error)) say(addError, "Cannot reach the service: try again, the task will not be added twice");
  } finally {
    adding = false;
    addForm.removeAttribute("aria-busy");
  }
});

tokenForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const token = tokenInput.value.trim();
  if (!TOKEN.test(token)) {
    say(tokenMessage, "A token is letters, digits and -._~+/, with = only at its end: check what you pasted");
    tokenInput.focus();
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  tokenForm.reset();
  tokenForm.hidden = true;
  refresh();
  if (addAfterToken) {
    addAfterToken = false;
    addForm.requestSubmit();
  }
});

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});

// Leaving the page ends its stream cleanly rather than cutting it off mid-way.
addEventListener("pagehide", stopStream);

refresh();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Tasks</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>Tasks</h1>
<p id="count" role="status">Loading…</p>
</header>
<form id="token-form" hidden>
<h2>Access token</h2>
<p id="token-message" class="error" role="alert"></p>
<div class="row">
<div class="field"><label for="token">Token</label><input id="token" name="token" type="password" required autocomplete="off"></div>
<button type="submit">Use token</button>
</div>
<p class="hint">Kept for this tab only, until you close it.</p>
</form>
<section aria-labelledby="add-heading">
<h2 id="add-heading">Add a task</h2>
<form id="add-form">
<div class="row">
<div class="field"><label for="title">Title</label><input id="title" name="title" type="text" required autocomplete="off"></div>
<div class="check"><input id="completed" name="completed" type="checkbox"><label for="completed">Done already</label></div>
<button type="submit">Add task</button>
</div>
<p id="add-status" role="status"></p>
<p id="add-error" class="error" role="alert" hidden></p>
</form>
</section>
<section aria-labelledby="list-heading">
<h2 id="list-heading">The list</h2>
<p id="list-status" class="error" role="alert"></p>
<table>
<thead><tr><th scope="col">Id</th><th scope="col">Title</th><th scope="col">Done</th></tr></thead>
<tbody id="tasks"></tbody>
</table>
</section>
<footer>The API behind this page is described by its <a id="openapi-link" href="openapi.json">OpenAPI document</a>.</footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** The home page as it is served: its bytes, their hash as its version, and the policy that allows its inline code. */
export interface HomePage {
  readonly body: BodyParts;
  readonly version: string;
  readonly policy: string;
}

/**
 * The home page, built on the first call, since hashing is asynchronous in Web Crypto, and the
 * same page on every later call, without a promise.
 */
export function homePage(): () => HomePage | Promise<HomePage> {
  let built: HomePage | undefined;
  let building: Promise<HomePage> | undefined;
  return () => {
    if (built !== undefined) return built;
    building ??= buildPage().then((page) => {
      built = page;
      return page;
    });
    return building;
  };
}

async function buildPage(): Promise<HomePage> {
  const body = new TextEncoder().encode(PAGE) as Uint8Array<ArrayBuffer>;
  const [scriptHash, styleHash, pageHash] = await Promise.all([sha256(SCRIPT), sha256(STYLE), sha256(PAGE)]);
  const policy = [
    "default-src 'none'",
    `script-src 'sha256-${scriptHash}'`,
    `style-src 'sha256-${styleHash}'`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
  return { body: { parts: [body], byteLength: body.byteLength }, version: pageHash, policy };
}

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest));
}
