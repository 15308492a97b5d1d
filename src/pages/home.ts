// The home page for people: one constant document, with the list kept current while it is open.
import type { BodyParts } from "../http/request-context.ts";
import {
  HTML,
  HTML_HASH,
  SCRIPT_HASH,
  SERVICE_WORKER,
  SERVICE_WORKER_HASH,
  STYLE_HASH,
} from "./home-page.generated.ts";

// The page is written as files in src/pages/home/ and served from the module built from them
// (`npm run build:page`), so that no runtime needs a build step. It has no path of its own for
// scripts or styles (every other path is 404), so both are inline and allowed by hash.

/** The home page as it is served: its bytes, their hash as its version, and the policy that allows its inline code. */
export interface HomePage {
  readonly body: BodyParts;
  readonly version: string;
  readonly policy: string;
}

const POLICY = [
  "default-src 'none'",
  `script-src 'sha256-${SCRIPT_HASH}'`,
  `style-src 'sha256-${STYLE_HASH}'`,
  "connect-src 'self'",
  // The page's service worker, beside it: a reload offline shows the page as last loaded.
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  // One policy, which makes a script URL of the service worker's address and of nothing else.
  "trusted-types service-worker",
].join("; ");

const bytes = new TextEncoder().encode(HTML) as Uint8Array<ArrayBuffer>;
const PAGE: HomePage = { body: { parts: [bytes], byteLength: bytes.byteLength }, version: HTML_HASH, policy: POLICY };

/** The home page: the same page, built when this module loads, on every call. */
export function homePage(): () => HomePage {
  return () => PAGE;
}

// The worker fetches the page it keeps, from its own origin, and nothing else.
const WORKER_POLICY = "default-src 'none'; connect-src 'self'";
const workerBytes = new TextEncoder().encode(SERVICE_WORKER) as Uint8Array<ArrayBuffer>;
const WORKER: HomePage = {
  body: { parts: [workerBytes], byteLength: workerBytes.byteLength },
  version: SERVICE_WORKER_HASH,
  policy: WORKER_POLICY,
};

/** The home page's service worker, as it is served: its bytes, their hash as its version, and its own policy. */
export function serviceWorker(): HomePage {
  return WORKER;
}
