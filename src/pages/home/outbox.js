// The home page's script: the writes that wait while the service cannot be reached, kept across reloads.
// @ts-check
import { byId, say } from "./dom.js";
import { markPending, showQueued } from "./list.js";
import { listName } from "./service.js";
import { shortTitle } from "./title.js";

/** @typedef {import("./list.js").Task} Task */
/**
 * A write that waits: an add with the Idempotency-Key it is sent with each time, or a change or a
 * deletion of a task as the person saw it, written with If-Match once the task is read again. An
 * add has an id of the page's own, below zero, until the service gives it one: the writes to it
 * that wait name it by that id, and are sent after it, to the id it gets. `tried` says whether it
 * may have reached the service: one that never did is dropped whole when it is deleted.
 * @typedef {{ kind: "add", key: string, title: string, id: number, tried: boolean }
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
    if (!Array.isArray(kept)) return [];
    // An add kept before adds had ids of their own: it may have reached the service.
    return kept.map((write) =>
      write.kind === "add" && typeof write.id !== "number"
        ? { ...write, id: localIdOf(write.key), tried: true }
        : write,
    );
  } catch {
    return [];
  }
}

/**
 * The page's own id for an add that waits, below zero so that no task has it, from its key.
 * @param {string} key 32 hex digits
 */
export function localIdOf(key) {
  return -(Number.parseInt(key.slice(0, 12), 16) + 1);
}

/**
 * Deletes an add that waits: it is dropped with every write to it when it never left the page,
 * else its deletion waits after it, as a deletion of any task does.
 * @param {Task} seen the task as the person saw it
 * @returns {boolean} whether nothing is left of it
 */
export function cancelAdd(seen) {
  const writes = waiting();
  const add = writes.find((write) => write.kind === "add" && write.id === seen.id);
  if (add?.kind !== "add") return true;
  if (add.tried) {
    queue({ kind: "delete", id: seen.id, seen });
    return false;
  }
  keep(writes.filter((write) => write.id !== seen.id));
  return true;
}

/** Notes that the first write, an add, is being sent: from now on it may have reached the service. */
export function tryingFirst() {
  const [first, ...rest] = waiting();
  if (first?.kind === "add" && !first.tried) keep([{ ...first, tried: true }, ...rest]);
}

/**
 * The first write, an add, has its id from the service: the writes to it that wait go to that id.
 * @param {number} local the add's own id
 * @param {number} id the id the service gave it
 */
export function addedAs(local, id) {
  const [first, ...rest] = waiting();
  if (first === undefined) return;
  keep([
    first,
    ...rest.map((write) =>
      write.kind !== "add" && write.id === local ? { ...write, id, seen: { ...write.seen, id } } : write,
    ),
  ]);
}

/**
 * The first write, an add, was refused: the writes to it that wait have nothing to go to.
 * @param {number} local the add's own id
 */
export function dropWritesTo(local) {
  keep(waiting().filter((write, index) => index === 0 || write.id !== local));
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
  /** Each add that waits, as it will be once the changes to it that wait are made too. @type {Map<number, Task>} */
  const added = new Map();
  for (const write of writes) {
    if (write.kind === "add") added.set(write.id, { id: write.id, title: write.title, completed: false });
    else (write.kind === "delete" ? deleted : changed).add(write.id);
    const task = added.get(write.id);
    if (write.kind === "patch" && task !== undefined) added.set(write.id, { ...task, ...write.body });
  }
  markPending(changed, deleted);
  showQueued([...added.values()]);
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
