import { describe, expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import { addFromElsewhere, expectShown, patchFromElsewhere, serverTasks, useBrowser } from "./browser.ts";
import { useInProcessServer } from "./in-process.ts";

const freshApp = () => createApp({ store: new MemoryStore(), config: parseAppConfig({ LOG_LEVEL: "off" }) });

describe("the home page of a service whose list is replaced by another", () => {
  // A memory store's list starts again when its process restarts, and on Workers each isolate has
  // its own: the page then meets a list that is not the one it shows plus new tasks.
  let app = freshApp();
  const { baseUrl, dropConnections } = useInProcessServer((request) => app.fetch(request));
  const openPage = useBrowser();

  test("shows the other list as it is, not the old one with tasks added", async () => {
    const list = `${baseUrl()}/tasks`;
    expect((await addFromElsewhere(list, "Only in the first list")).status).toBe(200);
    // Its stream is cut off mid-way when the list is replaced, which Chromium reports.
    const page = await openPage(`${baseUrl()}/`, { allowed: [/ERR_INCOMPLETE_CHUNKED_ENCODING/] });
    await expectShown(page, await serverTasks(list));
    // The list is replaced as when its process restarts: connections, the page's stream among them, drop.
    app = freshApp();
    dropConnections();
    for (const title of ["Only in the second list", "Also only in the second list"]) {
      expect((await addFromElsewhere(list, title)).status).toBe(200);
    }
    await expectShown(page, await serverTasks(list));
  });

  test("after edits took its events past the other list's, shows the other list exactly once it changes", async () => {
    const list = `${baseUrl()}/tasks`;
    const first = await (await addFromElsewhere(list, "Edited in the first list")).json();
    for (const title of ["Edited once", "Edited twice", "Edited three times"]) {
      expect((await patchFromElsewhere(`${list}/${first.id}`, { title })).status).toBe(200);
    }
    const page = await openPage(`${baseUrl()}/`, { allowed: [/ERR_INCOMPLETE_CHUNKED_ENCODING/] });
    await expectShown(page, await serverTasks(list));
    app = freshApp();
    dropConnections();
    expect((await addFromElsewhere(list, "Task 3 of the other list")).status).toBe(200);
    expect((await patchFromElsewhere(`${list}/3`, { completed: true })).status).toBe(200);
    const other = await serverTasks(list);
    expect(other.map((task) => task.id)).toEqual([1, 2, 3]);
    await expectShown(page, other);
  });

  test("shows the other list's task 3 when it is added just before the page asks for the events again", async () => {
    const list = `${baseUrl()}/tasks`;
    const events = `${list}/events`;
    let addBeforeEvents: string | undefined;
    let added = false;
    app = freshApp();
    expect((await addFromElsewhere(list, "Task 3 of the first list")).status).toBe(200);
    const page = await openPage(`${baseUrl()}/`, {
      allowed: [/ERR_INCOMPLETE_CHUNKED_ENCODING/],
      // The new list's third task lands as the page's request for the stream reaches the server.
      before: (tab) =>
        tab.route(`${events}*`, async (route) => {
          const title = addBeforeEvents;
          addBeforeEvents = undefined;
          if (title !== undefined) {
            expect((await addFromElsewhere(list, title)).status).toBe(200);
            added = true;
          }
          await route.fallback();
        }),
    });
    await expectShown(page, await serverTasks(list));
    app = freshApp();
    addBeforeEvents = "Task 3 of the second list";
    dropConnections();
    await expect.poll(() => added, { timeout: 30_000 }).toBe(true);
    const other = await serverTasks(list);
    expect(other.map((task) => task.title)).toEqual([
      "Read the task list specification",
      "Build the task list service",
      "Task 3 of the second list",
    ]);
    await expectShown(page, other);
  });

  test("shows the other list when it replaces the first between the page's read of the change number and its stream", async () => {
    const list = `${baseUrl()}/tasks`;
    const events = `${list}/events`;
    let replaceBeforeEvents = false;
    let replaced = false;
    app = freshApp();
    expect((await addFromElsewhere(list, "Task 3 of the first list")).status).toBe(200);
    const page = await openPage(`${baseUrl()}/`, {
      allowed: [/ERR_INCOMPLETE_CHUNKED_ENCODING/],
      // The page learned the first list's change number; the second list, as far along, answers its stream.
      before: (tab) =>
        tab.route(`${events}*`, async (route) => {
          if (replaceBeforeEvents) {
            replaceBeforeEvents = false;
            app = freshApp();
            expect((await addFromElsewhere(list, "Task 3 of the second list")).status).toBe(200);
            replaced = true;
          }
          await route.fallback();
        }),
    });
    await expectShown(page, await serverTasks(list));
    replaceBeforeEvents = true;
    dropConnections();
    await expect.poll(() => replaced, { timeout: 30_000 }).toBe(true);
    const other = await serverTasks(list);
    expect(other.map((task) => task.title).at(-1)).toBe("Task 3 of the second list");
    await expectShown(page, other);
  });
});
