import { expect, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/store/memory.ts";

test("serves the two initial tasks", async () => {
  const app = createApp({ store: new MemoryStore(), config: parseAppConfig({}) });
  const res = await app.request("/tasks");
  expect(res.status).toBe(200);
  expect(await res.json()).toHaveLength(2);
});
