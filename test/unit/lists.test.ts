// The lists' own rules on lists in memory (list-rules.ts), and a store that holds the default list only.
import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { LISTS_NOT_SUPPORTED, NOT_FOUND } from "../../src/messages.ts";
import { MemoryStore } from "../../src/store/memory.ts";
import { expectJsonError } from "./helpers.ts";
import { listsApp, sendJson } from "./list-helpers.ts";
import { describeListRules } from "./list-rules.ts";

describeListRules("lists in memory", async (env) => listsApp(env));

test("a store that holds the default list only serves it at /lists/default and answers a creation 501", async () => {
  const app = createApp({ store: new MemoryStore(), config: parseAppConfig({ LOG_LEVEL: "off" }) });
  expect(await (await app.request("/lists")).text()).toBe('[{"name":"default","title":"Tasks"}]');
  expect(await (await app.request("/lists/default")).text()).toBe('{"name":"default","title":"Tasks"}');
  expect((await app.request("/lists/default/tasks")).status).toBe(200);
  await expectJsonError(await sendJson(app, "POST", "/lists", { title: "x" }), 501, LISTS_NOT_SUPPORTED);
  await expectJsonError(await sendJson(app, "PUT", "/lists/other", { title: "x" }), 501, LISTS_NOT_SUPPORTED);
  await expectJsonError(await app.request("/lists/other/tasks"), 404, NOT_FOUND);
});
