// Browser cases for the outbox: writes made while the service cannot be reached, shared by every runtime's file.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, addWithForm, expectShown, serverTasks, useBrowser } from "./browser.ts";

const ADDED = ["First written offline", "Second written offline", "Third written offline"];

/** What a person does on the home page of a real `runtime` server while it cannot be reached. */
export function describeOutbox(runtime: Runtime): void {
  describe(`the outbox of the home page of a ${runtime} server`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("writes made out of reach wait, survive a reload, are shown on their rows, and are sent once when the service is back", async () => {
      const renamed = (await (await addFromElsewhere(list(), "Renamed offline")).json()) as { id: number };
      const toggled = (await (await addFromElsewhere(list(), "Toggled offline")).json()) as { id: number };
      const deleted = (await (await addFromElsewhere(list(), "Deleted offline")).json()) as { id: number };
      let offline = false;
      const keys = new Map<string, (string | null)[]>();
      const page = await openPage(home(), {
        allowed: [/net::ERR_INTERNET_DISCONNECTED/],
        before: (tab) =>
          tab.route(/\/tasks(\/|\?|$)/, async (route) => {
            const request = route.request();
            if (request.method() === "POST") {
              const title = JSON.parse(request.postData() ?? "{}").title;
              keys.set(title, [...(keys.get(title) ?? []), await request.headerValue("Idempotency-Key")]);
            }
            if (offline) return route.abort("internetdisconnected");
            return route.fallback();
          }),
      });
      const initial = await serverTasks(list());
      await expectShown(page, initial);
      offline = true;
      for (const title of ADDED) await addWithForm(page, title);
      // The rows settle before the next act: a double click on a row drawn again would be lost.
      await expect.poll(() => waitingToBeAdded(page), { timeout: 30_000 }).toHaveLength(ADDED.length);
      await page.getByText("Renamed offline", { exact: true }).dblclick();
      await page.locator("li.editing .edit-input").waitFor();
      // The caret is at the end of the title: selecting all of it makes the typing replace it.
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type("Renamed while offline");
      await page.keyboard.press("Enter");
      await page.getByRole("checkbox", { name: "Toggled offline", exact: true }).click();
      await page.getByRole("button", { name: "Delete Deleted offline", exact: true }).click();
      const banner =
        "The service cannot be reached. Waiting to be sent when it is back: " +
        `${ADDED.map((title) => `add “${title}”`).join("; ")}; ` +
        "rename “Renamed offline” to “Renamed while offline”; mark “Toggled offline” done; delete “Deleted offline”";

      for (const moment of ["offline", "reloaded offline"]) {
        await page.getByText(banner, { exact: true }).waitFor();
        expect(await waitingToBeAdded(page), moment).toEqual(ADDED.map((title) => `${title} waiting to be added`));
        expect(await marked(page), moment).toEqual([
          { id: renamed.id, title: "Renamed while offline", completed: false, mark: "waiting to be sent" },
          { id: toggled.id, title: "Toggled offline", completed: true, mark: "waiting to be sent" },
          { id: deleted.id, title: "Deleted offline", completed: false, mark: "waiting to be deleted" },
        ]);
        for (const name of ["Deleted offline", "Edit Deleted offline", "Delete Deleted offline"]) {
          expect(
            await page
              .getByRole(name === "Deleted offline" ? "checkbox" : "button", { name, exact: true })
              .isDisabled(),
            moment,
          ).toBe(true);
        }
        if (moment !== "offline") continue;
        // Left to do: the list as it will be, the adds in, the task marked done and the deletion out.
        const left = initial.filter((task) => !task.completed && task.id !== toggled.id && task.id !== deleted.id);
        expect(await page.getByText(/^\d+ items? left$/).textContent()).toBe(
          `${left.length + ADDED.length} items left`,
        );
        await page.reload();
      }
      const before = await serverTasks(list());
      expect(before.some((task) => ADDED.includes(task.title))).toBe(false);

      offline = false;
      // Gone only once all of it was sent: the banner shortens as each write goes.
      await page.getByText(/^The service cannot be reached/).waitFor({ state: "hidden", timeout: 30_000 });
      const after = await serverTasks(list());
      for (const title of ADDED)
        expect(
          after.filter((task) => task.title === title),
          title,
        ).toHaveLength(1);
      expect(after.find((task) => task.id === renamed.id)?.title).toBe("Renamed while offline");
      expect(after.find((task) => task.id === toggled.id)?.completed).toBe(true);
      expect(after.some((task) => task.id === deleted.id)).toBe(false);
      await expectShown(page, after);
      expect(await waitingToBeAdded(page)).toEqual([]);
      expect(await marked(page)).toEqual([]);
      await expectShown(await openPage(home()), after);
      // Every POST of an add carried its one key. The first was tried as it was made; one made while
      // an add before it was being tried may have gone to the outbox behind it untried.
      for (const title of ADDED) expect(new Set(keys.get(title)).size, title).toBe(1);
      expect(keys.get(ADDED[0] ?? "")?.length).toBeGreaterThanOrEqual(2);
      expect(new Set([...keys.values()].map((sent) => sent[0])).size).toBe(ADDED.length);
    });

    test("writes the service answers 503 (its store out of reach) wait in the outbox too, and are sent once it serves again", async () => {
      const toggled = (await (await addFromElsewhere(list(), "Marked while the store is down")).json()) as {
        id: number;
      };
      const deleted = (await (await addFromElsewhere(list(), "Deleted while the store is down")).json()) as {
        id: number;
      };
      let down = false;
      const posts: (string | null)[] = [];
      const page = await openPage(home(), {
        refused: [503],
        // The list's stream stays open, as a server whose store is out of reach keeps it.
        before: (tab) =>
          tab.route(/\/tasks(\/\d+)?$/, async (route) => {
            if (route.request().method() === "POST") posts.push(await route.request().headerValue("Idempotency-Key"));
            if (!down) return route.fallback();
            return route.fulfill({
              status: 503,
              headers: { "Retry-After": "1" },
              contentType: "application/json",
              body: '{"message":"The store cannot be reached"}',
            });
          }),
      });
      await expectShown(page, await serverTasks(list()));
      down = true;
      await addWithForm(page, "Added while the store is down");
      await page.getByRole("checkbox", { name: "Marked while the store is down", exact: true }).click();
      await page.getByRole("button", { name: "Delete Deleted while the store is down", exact: true }).click();
      await page
        .getByText(
          "The service cannot be reached. Waiting to be sent when it is back: add “Added while the store is down”; " +
            "mark “Marked while the store is down” done; delete “Deleted while the store is down”",
          { exact: true },
        )
        .waitFor();
      expect(await waitingToBeAdded(page)).toEqual(["Added while the store is down waiting to be added"]);
      expect((await marked(page)).map((task) => [task.id, task.mark])).toEqual([
        [toggled.id, "waiting to be sent"],
        [deleted.id, "waiting to be deleted"],
      ]);
      expect(await page.getByRole("alert").filter({ hasText: "The store cannot be reached" }).count()).toBe(0);

      down = false;
      await page.getByText(/^The service cannot be reached/).waitFor({ state: "hidden", timeout: 30_000 });
      const after = await serverTasks(list());
      expect(after.filter((task) => task.title === "Added while the store is down")).toHaveLength(1);
      expect(after.find((task) => task.id === toggled.id)?.completed).toBe(true);
      expect(after.some((task) => task.id === deleted.id)).toBe(false);
      await expectShown(page, after);
      expect(posts.length).toBeGreaterThanOrEqual(2);
      expect(new Set(posts).size).toBe(1);
    });
  });
}

/** The rows of the adds that wait, as a person sees them: title and mark. */
function waitingToBeAdded(page: Page): Promise<string[]> {
  return page
    .getByRole("list", { name: "Waiting to be added", exact: true })
    .getByRole("listitem")
    .evaluateAll((items) =>
      items.map(
        (li) => `${li.querySelector(".title-text")?.textContent} ${li.querySelector(".pending-mark")?.textContent}`,
      ),
    );
}

/** The tasks whose row says that something waits to be sent for them, with what it says. */
function marked(page: Page) {
  return page.locator("#tasks > li").evaluateAll((items) =>
    items.flatMap((li) => {
      const mark = li.querySelector(".pending-mark") as HTMLElement | null;
      if (mark === null || mark.offsetParent === null) return [];
      return [
        {
          id: Number((li as HTMLElement).dataset.id),
          title: li.querySelector(".title-text")?.textContent ?? "",
          completed: (li.querySelector(".done-box") as HTMLInputElement | null)?.checked ?? false,
          mark: mark.textContent,
        },
      ];
    }),
  );
}
