// The home page's script: the writes that wait while the service cannot be reached, kept across reloads.
// @ts-check
import { byId, say } from "./dom.js";
import { markPending, showQueued } from "./list.js";
import { listName } from "./service.js";
import { shortTitle } from "./title.js";

/** @typedef {import("./list.js").Task} Task */
/**
 * A write that waits: an add with the Idempotency-Key it is sent with each time, or a change or a
 * deletion of a task as the person saw it, written with If-Match once the task is read again.
 * @typedef {{ kind: "add", key: string, title: string }
 *   | { kind: "patch", id: number, body: Partial<Task>, seen: Task }
 *   | { kind: "delete", id: number, seen: Task }} Waiting
 */

// Each list has its own outbox, so that no write waiting for one is ever sent to another; the default
// list's keeps the key it had before there were lists.
const OUTBOX_KEY = listName === "default" ? "task-list-outbox" : `task-list-outbox:${listName}`;
const banner = byId("outbox", HTMLParagraphElement);

/** @returns {Waiting[]} */
export function waiting() {
  try {
    const kept = JSON.parse(localStorage.getItem(OUTBOX_KEY) ?? "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

/**
 * Keeps a write to send once the service can be reached.
 * @param {Waiting} write
 */
export function queue(write) {
  keep([...waiting(), write]);
}

/** Drops the first write that waits: it was sent, or the service refused it. */
export function sent() {
  keep(waiting().slice(1));
}

/** Drops every write that waits: the list they were for was deleted. */
export function dropWaiting() {
  keep([]);
}

/** @param {Waiting[]} writes */
function keep(writes) {
  if (writes.length === 0) localStorage.removeItem(OUTBOX_KEY);
  else localStorage.setItem(OUTBOX_KEY, JSON.stringify(writes));
  showWaiting();
}

/** Says what waits to be sent, if anything does, in the banner and on the rows it concerns. */
export function showWaiting() {
  const writes = waiting();
  const changed = new Set();
  const deleted = new Set();
  /** @type {string[]} */
  const added = [];
  for (const write of writes) {
    if (write.kind === "add") added.push(write.title);
    else (write.kind === "delete" ? deleted : changed).add(write.id);
  }
  markPending(changed, deleted);
  showQueued(added);
  const what = writes.map((write) => {
    if (write.kind === "add") return `add “${shortTitle(write.title)}”`;
    const title = shortTitle(write.seen.title);
    if (write.kind === "delete") return `delete “${title}”`;
    if (write.body.title !== undefined) return `rename “${title}” to “${shortTitle(write.body.title)}”`;
    return `mark “${title}” ${write.body.completed ? "done" : "not done"}`;
  });
  say(
    banner,
    writes.length === 0 ? "" : `The service cannot be reached. Waiting to be sent when it is back: ${what.join("; ")}`,
  );
}
