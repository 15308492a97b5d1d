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
// The page is the base path with or without its trailing slash; the API sits under it either way.
const base = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";
const tasksUrl = base + "tasks";
const TOKEN_KEY = "task-list-token";
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
let adding = false;
let addAfterToken = false;

function say(element, text) {
  element.textContent = text;
  element.hidden = text === "";
}

function withToken(headers) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token === null ? headers : { ...headers, Authorization: "Bearer " + token };
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
  say(tokenMessage, message);
  tokenForm.hidden = false;
  tokenInput.focus();
}

// The list only grows, so a read that still starts with every task shown only appends rows: a
// long list is laid out once, not again at each change.
function render(tasks) {
  const kept = shown.length <= tasks.length && shown.every((task, i) => sameTask(task, tasks[i])) ? shown.length : 0;
  const fragment = document.createDocumentFragment();
  for (const task of tasks.slice(kept)) {
    const row = document.createElement("tr");
    if (task.completed) row.className = "done";
    row.append(cell(String(task.id), "id"), cell(task.title, "title"), cell(task.completed ? "Done" : "Not done", "state"));
    fragment.append(row);
  }
  if (kept === 0) rows.replaceChildren(fragment);
  else rows.append(fragment);
  shown = tasks;
  count.textContent = tasks.length === 1 ? "1 task" : tasks.length + " tasks";
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
  if (!document.hidden) timer = setTimeout(refresh, POLL_MS);
}

// One read at a time: a refresh asked for during a read runs right after it, so answers never arrive out of order.
function refresh() {
  clearTimeout(timer);
  if (!tokenForm.hidden) return;
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

async function load() {
  try {
    // The page sends If-None-Match itself, and no-store keeps the browser's cache from answering for the server.
    const res = await fetch(tasksUrl, {
      cache: "no-store",
      headers: withToken(etag === null ? {} : { "If-None-Match": etag }),
    });
    if (res.status === 401) return askForToken(await messageOf(res));
    if (res.status === 200) {
      render(await res.json());
      etag = res.headers.get("ETag");
    } else if (res.status !== 304) {
      say(listStatus, "Could not read the list: " + (await messageOf(res)));
      return schedule();
    }
    say(listStatus, "");
  } catch {
    say(listStatus, "Could not reach the service; trying again");
  }
  schedule();
}

addForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (adding) return;
  adding = true;
  addForm.setAttribute("aria-busy", "true");
  say(addError, "");
  say(addStatus, "");
  try {
    const res = await fetch(tasksUrl, {
      method: "POST",
      cache: "no-store",
      headers: withToken({ "Content-Type": "application/json" }),
      body: JSON.stringify({ title: titleInput.value, completed: completedInput.checked }),
    });
    if (res.ok) {
      const task = await res.json();
      addForm.reset();
      titleInput.focus();
      say(addStatus, "Added task " + task.id);
      refresh();
    } else if (res.status === 401) {
      addAfterToken = true;
      askForToken(await messageOf(res));
    } else {
      say(addError, await messageOf(res));
    }
  } catch {
    say(addError, "Cannot reach the service: the task was not added");
  } finally {
    adding = false;
    addForm.removeAttribute("aria-busy");
  }
});

tokenForm.addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
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
