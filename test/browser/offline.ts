// Browser cases for a browser really offline: a reload shows the page, its list and its outbox, and each write is sent once.
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import type { Page } from "playwright-core";
import { describe, expect, onTestFinished, test } from "vitest";
import type { RunningServer, Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { violations } from "./axe.ts";
import { addFromElsewhere, addWithForm, expectShown, type ShownTask, serverTasks, useBrowser } from "./browser.ts";
import { screenshot } from "./screenshots.ts";

/** The writes the server logged after `from` characters of its output, as "POST /tasks". */
function logged(server: RunningServer, from: number): string[] {
  return server
    .output()
    .slice(from)
    .split("\n")
    .flatMap((line) => {
      const request = /"method":"(POST|PUT|PATCH|DELETE)","path":"([^"]*)"/.exec(line);
      return request === null ? [] : [`${request[1]} ${request[2]}`];
    });
}

/**
 * Where in the server's output what it logs from now on starts. A runtime may write its log a while
 * after it answered (Deno and Bun buffer a pipe), so the output's length now could fall before the
 * line of a request already answered: a request to a path of its own marks the place instead.
 */
async function logFromHere(server: RunningServer): Promise<number> {
  const path = `/log-mark-${crypto.randomUUID()}`;
  await (await fetch(`${server.baseUrl}${path}`)).arrayBuffer();
  await expect.poll(() => server.output().includes(`"path":"${path}"`)).toBe(true);
  const at = server.output().indexOf(`"path":"${path}"`);
  return server.output().indexOf("\n", at) + 1;
}

/** The adds that wait, as their rows show them: title, checked or not, and what the row says. */
function waitingAdds(page: Page) {
  return page
    .getByRole("list", { name: "Waiting to be added", exact: true })
    .getByRole("listitem")
    .evaluateAll((items) =>
      items.map((li) => ({
        title: li.querySelector(".title-text")?.textContent ?? "",
        completed: (li.querySelector(".done-box") as HTMLInputElement | null)?.checked ?? null,
        mark: li.querySelector(".pending-mark")?.textContent ?? "",
      })),
    );
}

/**
 * The network between the browser and the server, as a person's connection is: a proxy the page is
 * opened through, which, once the network drops, cuts every connection and refuses new ones, while
 * Chromium is told it is offline (navigator.onLine, the offline and online events). Chromium's own
 * offline emulation alone lets some requests through (a page's first requests after a reload, a
 * keepalive request sent as a page unloads); a network that is down lets none.
 */
async function networkSwitch(server: RunningServer) {
  const target = new URL(server.baseUrl);
  let offline = false;
  const open = new Set<Socket>();
  const proxy = createServer((browser) => {
    if (offline) {
      browser.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [browser, upstream]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => {
        browser.destroy();
        upstream.destroy();
      });
    }
    browser.pipe(upstream).pipe(browser);
  });
  await new Promise<void>((listening) => proxy.listen(0, "127.0.0.1", listening));
  onTestFinished(
    () =>
      new Promise<void>((closed) => {
        for (const socket of open) socket.destroy();
        proxy.close(() => closed());
      }),
  );
  const { port } = proxy.address() as AddressInfo;
  return {
    /** The service's address through the network this switch drops. */
    baseUrl: `http://127.0.0.1:${port}`,
    async goOffline(page: Page): Promise<void> {
      onTestFinished(() => page.context().setOffline(false));
      offline = true;
      for (const socket of open) socket.destroy();
      await page.context().setOffline(true);
    },
    async goOnline(page: Page): Promise<void> {
      offline = false;
      await page.context().setOffline(false);
    },
  };
}

/** What a person does on the home page of a real `runtime` server with the browser really offline. */
export function describeOffline(runtime: Runtime): void {
  describe(`the home page of a ${runtime} server, with the browser offline`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const list = () => `${server().baseUrl}/tasks`;

    test("a reload offline shows the list as last seen and what waits; an add waiting can be marked and deleted; online, each write is sent once", async () => {
      const renamed = (await (await addFromElsewhere(list(), "Renamed offline")).json()) as ShownTask;
      const deleted = (await (await addFromElsewhere(list(), "Deleted offline")).json()) as ShownTask;
      const network = await networkSwitch(server());
      const home = `${network.baseUrl}/`;
      // What a browser says of requests cut off or refused by a network that dropped: a failure of the
      // network's own (net::ERR_…), whichever the moment of the drop gives (reset, closed, not connected…).
      const dropped = /^Failed to load resource: net::ERR_[A-Z_]+$/;
      const page = await openPage(home, { allowed: [dropped] });
      const initial = await serverTasks(list());
      await expectShown(page, initial);
      // The page is kept for a reload offline once its service worker runs.
      await expect
        .poll(() => page.evaluate(async () => (await caches.match(location.href)) !== undefined), { timeout: 30_000 })
        .toBe(true);
      const from = await logFromHere(server());

      await network.goOffline(page);
      for (const title of ["Added offline first", "Added offline second", "Added offline, then deleted"]) {
        await addWithForm(page, title);
      }
      await expect.poll(() => waitingAdds(page), { timeout: 30_000 }).toHaveLength(3);
      await page.getByRole("checkbox", { name: "Added offline first", exact: true }).click();
      await page.getByRole("button", { name: "Delete Added offline, then deleted", exact: true }).click();
      await page.getByText("Renamed offline", { exact: true }).dblclick();
      const field = page.getByRole("textbox", { name: "New title for Renamed offline", exact: true });
      await field.press("End");
      await page.keyboard.type(" while the browser was offline");
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Delete Deleted offline", exact: true }).click();
      // The deletion of the add that never left the page goes once its Undo does: nothing is left of it.
      await page.getByRole("button", { name: "Undo", exact: true }).waitFor({ state: "hidden", timeout: 30_000 });

      const banner =
        "The service cannot be reached. Waiting to be sent when it is back: " +
        "add “Added offline first”; add “Added offline second”; mark “Added offline first” done; " +
        "rename “Renamed offline” to “Renamed offline while the browser was offline”; delete “Deleted offline”";
      const asLastSeen = initial.map((task) =>
        task.id === renamed.id ? { ...task, title: "Renamed offline while the browser was offline" } : task,
      );
      for (const moment of ["offline", "reloaded offline"]) {
        await page.getByText(banner, { exact: true }).waitFor({ timeout: 30_000 });
        await expectShown(page, asLastSeen);
        expect(await waitingAdds(page), moment).toEqual([
          { title: "Added offline first", completed: true, mark: "waiting to be added" },
          { title: "Added offline second", completed: false, mark: "waiting to be added" },
        ]);
        const left = asLastSeen.filter((task) => !task.completed && task.id !== deleted.id).length + 1;
        expect(await page.getByText(/^\d+ items? left$/).textContent(), moment).toBe(`${left} items left`);
        if (moment === "offline") await page.reload();
        else {
          expect(await violations(page), "reloaded offline").toEqual([]);
          if (runtime === "node") await screenshot(page, "home-page-offline.png");
        }
      }

      await network.goOnline(page);
      await page.getByText(/^The service cannot be reached/).waitFor({ state: "hidden", timeout: 30_000 });
      const after = await serverTasks(list());
      const first = after.find((task) => task.title === "Added offline first");
      const second = after.find((task) => task.title === "Added offline second");
      expect(first?.completed).toBe(true);
      expect(second?.completed).toBe(false);
      expect(after.filter((task) => task.title.startsWith("Added offline"))).toHaveLength(2);
      expect(after.find((task) => task.id === renamed.id)?.title).toBe("Renamed offline while the browser was offline");
      expect(after.some((task) => task.id === deleted.id)).toBe(false);
      // Each write reached the service once, in the order it was made, the mark after the add it marks.
      expect(logged(server(), from)).toEqual([
        "POST /tasks",
        "POST /tasks",
        `PATCH /tasks/${first?.id}`,
        `PATCH /tasks/${renamed.id}`,
        `DELETE /tasks/${deleted.id}`,
      ]);
      await expectShown(page, after);
      expect(await waitingAdds(page)).toEqual([]);
      await expectShown(await openPage(home), after);
    });
  });
}
