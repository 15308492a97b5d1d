// The app in this process as the suite's target: no server between them, so a store's part of the
// contract is checked at the speed of the store itself.
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import type { TaskLists, TaskStore } from "../../src/engine/task-store.ts";
import { checkedAgainstOpenApi } from "../support/openapi-check.ts";
import type { ConformanceTarget } from "./client.ts";

/**
 * The app over `store` (the default list alone) or `lists`, configured from `env` as a runtime entry
 * configures it (its log off), as a target whose every exchange is also checked against the app's
 * own OpenAPI document.
 */
export function inProcessTarget(
  store: TaskStore | { readonly lists: TaskLists },
  env: Readonly<Record<string, string>> = {},
): ConformanceTarget {
  const config = parseAppConfig({ ...env, LOG_LEVEL: "off" });
  const app = createApp("lists" in store ? { lists: store.lists, config } : { store, config });
  const fetch = checkedAgainstOpenApi((request: Request) => Promise.resolve(app.request(request)), env.BASE_PATH);
  return { baseUrl: `http://localhost${env.BASE_PATH ?? ""}`, fetch };
}
