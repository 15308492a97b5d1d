// The home page's script: sends the writes that waited, once the service can be reached again.
// @ts-check
import { notify } from "./dom.js";
import { isGone } from "./gone.js";
import { put, remove, taskOf } from "./list.js";
import { addedAs, dropWritesTo, sent, showWaiting, tryingFirst, waiting } from "./outbox.js";
import { messageOf, sendTask, tasksUrl } from "./service.js";
import { refresh } from "./sync.js";
import { changedElsewhere, readTask, same } from "./task-controls.js";

// How often the page tries again while writes wait.
const RETRY_MS = 3000;
let flushing = false;

/**
 * Shows what waits, and sends it all as soon as it can. Until the list is read, a task with a
 * change or a deletion waiting is shown as the outbox knows it, so that a reload out of reach
 * still shows what waits on the rows it concerns.
 */
export function sendWaiting() {
  showWaiting();
  const drawn = new Set();
  for (const write of waiting()) {
    if (write.kind === "add" || write.id < 0 || (taskOf(write.id) !== undefined && !drawn.has(write.id))) continue;
    drawn.add(write.id);
    const task = taskOf(write.id) ?? write.seen;
    put(write.kind === "patch" ? { ...task, ...write.body } : task);
  }
  addEventListener("online", flush);
  setInterval(flush, RETRY_MS);
  flush();
}

/** Sends what waits, in order, stopping at the first that still cannot reach the service. */
async function flush() {
  if (flushing || isGone() || waiting().length === 0) return;
  flushing = true;
  try {
    for (let write = waiting()[0]; write !== undefined; write = waiting()[0]) {
      await sendOne(write);
      sent();
    }
    refresh();
  } catch {
    // Still out of reach: all of it waits for the next try.
  } finally {
    flushing = false;
  }
}

/**
 * Sends one write; throws when the service cannot be reached.
 * @param {import("./outbox.js").Waiting} write
 */
async function sendOne(write) {
  if (write.kind === "add") {
    // Offline, nothing is tried: the add stays one that never left the page.
    if (!navigator.onLine) throw new Error("Offline");
    tryingFirst();
    const res = await sendTask(tasksUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": write.key },
      body: JSON.stringify({ title: write.title, completed: false }),
    });
    if (res.ok) {
      /** @type {import("./list.js").Task} */
      const task = await res.json();
      addedAs(write.id, task.id);
      put(task);
    } else {
      dropWritesTo(write.id);
      notify(`“${write.title}” was not added: ${await messageOf(res)}`);
    }
    return;
  }
  const current = await readTask(write.id);
  if (current === undefined) return;
  if (!same(current.task, write.seen)) return changedElsewhere(current.task);
  const headers = { "If-Match": current.etag };
  const res =
    write.kind === "delete"
      ? await sendTask(`${tasksUrl}/${write.id}`, { method: "DELETE", headers })
      : await sendTask(`${tasksUrl}/${write.id}`, {
          method: "PATCH",
          headers: { ...headers, "Content-Type": "application/merge-patch+json" },
          body: JSON.stringify(write.body),
        });
  if (res.status === 204) return remove(write.id);
  if (res.status === 200) return put(await res.json());
  put(current.task);
  notify(`A change to “${write.seen.title}” was not made: ${await messageOf(res)}`);
}
