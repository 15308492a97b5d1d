import { parseArgs } from "node:util";
import { type CaseResult, type ConformanceOptions, runConformance } from "./suite.ts";

const USAGE = `Usage: npm run test:conformance -- --base-url URL [options]

Runs the conformance suite against a running deployment and prints one line per case.
Cases POST tasks, so point it at a deployment whose list may grow.

  --base-url URL            where the service answers, its base path included (required)
  --base-path PATH          the BASE_PATH that ends --base-url, such as /api; checks that paths outside it return 404
  --max-body-bytes N        the deployment's MAX_BODY_BYTES (default 1048576)
  --max-tasks N             the deployment's MAX_TASKS, if small enough to fill; checks 507
  --max-list-bytes N        the deployment's MAX_LIST_BYTES: fills the list to it with large titles and checks 507
  --read-token T --write-token T
                            a token from READ_TOKENS and one from WRITE_TOKENS, for a deployment with both set:
                            requests carry the write token, and the access rules are checked
  --cors-origins LIST       the deployment's CORS_ORIGINS ("*" or comma-separated origins); default: CORS off
  --list-path PATH          test a named list, such as /lists/groceries (created beforehand), instead of /tasks
  --fresh                   the deployment has served no POST yet: expect exactly the two initial tasks
  --worker                  the deployment is a Cloudflare Worker: skips the cases that send an empty
                            If-Match or Content-Type, which workerd drops before the Worker sees them
  --request-timeout-ms N    how long one request may take (default 30000)`;

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    "base-path": { type: "string" },
    "max-body-bytes": { type: "string" },
    "max-tasks": { type: "string" },
    "max-list-bytes": { type: "string" },
    "read-token": { type: "string" },
    "write-token": { type: "string" },
    "cors-origins": { type: "string" },
    "list-path": { type: "string" },
    fresh: { type: "boolean", default: false },
    worker: { type: "boolean", default: false },
    "request-timeout-ms": { type: "string", default: "30000" },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const baseUrl = values["base-url"];
if (baseUrl === undefined || !URL.canParse(baseUrl))
  usageError("--base-url must be an http or https URL, such as http://127.0.0.1:8787");
const timeoutMs = count("request-timeout-ms", values["request-timeout-ms"]) ?? 30_000;
const maxBodyBytes = count("max-body-bytes", values["max-body-bytes"]);
const maxTasks = count("max-tasks", values["max-tasks"]);
const maxListBytes = count("max-list-bytes", values["max-list-bytes"]);
const readToken = values["read-token"];
const writeToken = values["write-token"];
if ((readToken === undefined) !== (writeToken === undefined)) usageError("--read-token and --write-token go together");
const corsValue = values["cors-origins"]?.trim();
const listPath = values["list-path"];
if (listPath !== undefined && !/^\/lists\/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(listPath))
  usageError("--list-path must be /lists/ then a list's name, such as /lists/groceries");
const options: ConformanceOptions = {
  ...(values["base-path"] === undefined ? {} : { basePath: values["base-path"] }),
  ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  ...(maxTasks === undefined ? {} : { maxTasks }),
  ...(maxListBytes === undefined ? {} : { maxListBytes }),
  ...(readToken === undefined || writeToken === undefined ? {} : { tokens: { read: readToken, write: writeToken } }),
  ...(corsValue === undefined
    ? {}
    : { corsOrigins: corsValue === "*" ? "*" : corsValue.split(",").map((o) => o.trim()) }),
  ...(listPath === undefined ? {} : { listPath }),
  fresh: values.fresh,
  worker: values.worker,
};

const fetchWithTimeout = (request: Request): Promise<Response> =>
  fetch(request, { signal: AbortSignal.timeout(timeoutMs) });

let results: CaseResult[];
try {
  results = await runConformance({ baseUrl, fetch: fetchWithTimeout }, options, (result) => {
    if (result.skipped !== undefined) console.log(`skip  ${result.name}: ${result.skipped}`);
    else console.log(result.failure === undefined ? `pass  ${result.name}` : `FAIL  ${result.name}: ${result.failure}`);
  });
} catch (error) {
  usageError(error instanceof Error ? error.message : String(error));
}
const failed = results.filter((result) => result.failure !== undefined).length;
const skipped = results.filter((result) => result.skipped !== undefined).length;
console.log(`${results.length - failed - skipped} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed === 0 ? 0 : 1;

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    usageError(`--${name} must be a whole number of at least 1, got ${value}`);
  return Number(value);
}

function usageError(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}
