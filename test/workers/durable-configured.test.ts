import { env } from "cloudflare:workers";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";

// MAX_TASKS is small here, so the suite fills the Durable Object's list and sees it refuse more.
if (env.TASK_LIST === undefined) throw new Error("The durable environment must bind TASK_LIST");
const app = createApp({
  store: new DurableObjectStore(env.TASK_LIST),
  config: parseAppConfig({ ...CONFIGURED_ENV, LOG_LEVEL: "off" }),
});

describeConformance(
  "conformance with every setting configured, with the list in a Durable Object",
  () => ({ baseUrl: `http://example.com${CONFIGURED_ENV.BASE_PATH}`, fetch: async (request) => app.fetch(request) }),
  { ...CONFIGURED_OPTIONS, fresh: true, oneList: true, inWorkerd: true },
);
