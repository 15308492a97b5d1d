// Browser cases for the outbox: writes made while the service cannot be reached, shared by every runtime's file.
import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { addFromElsewhere, addWithForm, expectShown, serverTasks, useBrowser } from "./browser.ts";

/** What a person does on the home page of a real `runtime` server while it cannot be reached. */
export function describeOutbox(runtime: Runtime): void {
  describe(`the outbox of the home page of a ${runtime} server`, () => {
    const server = useServer(runtime, {});
    const openPage = useBrowser();
    const home = () => `${server().baseUrl}/`;
    const list = () => `${server().baseUrl}/tasks`;

    test("writes made out of reach wait, survive a reload, are shown, and are sent once when the service is back", async () => {
      const toggled = (await (await addFromElsewhere(list(), "Toggled offline")).json()) as { id: number };
      const deleted = (await (await addFromElsewhere(list(), "Deleted offline")).json()) as { id: number };
      let offline = false;
      const keys: (string | null)[] = [];
      const page = await openPage(home(), {
        allowed: [/net::ERR_INTERNET_DISCONNECTED/],
        before: (tab) =>
          tab.route(/\/tasks(\/|\?|$)/, async (route) => {
            if (route.request().method() === "POST") keys.push(await route.request().headerValue("Idempotency-Key"));
            if (offline) return route.abort("internetdisconnected");
            return route.fallback();
          }),
      });
      await expectShown(page, await serverTasks(list()));
      offline = true;
      await addWithForm(page, "Written offline");
      await page.getByRole("checkbox", { name: "Toggled offline", exact: true }).click();
      await page.getByRole("button", { name: "Delete Deleted offline", exact: true }).click();
      const banner =
        "The service cannot be reached. Waiting to be sent when it is back: add “Written offline”; " +
        "mark “Toggled offline” done; delete “Deleted offline”";
      await page.getByText(banner, { exact: true }).waitFor();
      expect(await page.getByText("Deleted offline", { exact: true }).count()).toBe(0);
      const toggledRow = page.locator("#tasks > li", { hasText: "Toggled offline" }).locator(".title-view");
      expect(await toggledRow.evaluate((view) => getComputedStyle(view, "::after").content)).toBe(
        '" (waiting to be sent)"',
      );
      await page.reload();
      await page.getByText(banner, { exact: true }).waitFor();
      expect(await page.getByText("Deleted offline", { exact: true }).count()).toBe(0);
      const before = await serverTasks(list());
      expect(before.some((task) => task.title === "Written offline")).toBe(false);

      offline = false;
      // Gone only once all of it was sent: the banner shortens as each write goes.
      await page.getByText(/^The service cannot be reached/).waitFor({ state: "hidden", timeout: 30_000 });
      const after = await serverTasks(list());
      expect(after.filter((task) => task.title === "Written offline")).toHaveLength(1);
      expect(after.find((task) => task.id === toggled.id)?.completed).toBe(true);
      expect(after.some((task) => task.id === deleted.id)).toBe(false);
      await expectShown(page, after);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(new Set(keys).size).toBe(1);
    });
  });
}
