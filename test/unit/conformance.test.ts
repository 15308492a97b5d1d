import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/store/memory.ts";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS } from "../conformance/configured.ts";
import { describeConformance } from "../conformance/describe.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../conformance/table.ts";
import { checkedAgainstOpenApi } from "../support/openapi-check.ts";

/**
 * The app over a fresh memory store, configured from `env`, as a fetch function that also checks
 * every exchange against the app's own OpenAPI document.
 */
function appFetch(env: Record<string, string>): (request: Request) => Promise<Response> {
  const app = createApp({ store: new MemoryStore(), config: parseAppConfig({ ...env, LOG_LEVEL: "off" }) });
  return checkedAgainstOpenApi((request: Request) => Promise.resolve(app.request(request)), env.BASE_PATH);
}

const defaults = appFetch({});
describeConformance(
  "conformance through app.request, default configuration",
  () => ({ baseUrl: "http://localhost", fetch: defaults }),
  { fresh: true, maxListBytes: DEFAULT_MAX_LIST_BYTES },
);

const configured = appFetch(CONFIGURED_ENV);
describeConformance(
  "conformance through app.request, every setting configured",
  () => ({ baseUrl: `http://localhost${CONFIGURED_ENV.BASE_PATH}`, fetch: configured }),
  { ...CONFIGURED_OPTIONS, fresh: true },
);
