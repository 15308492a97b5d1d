/** How the app under test is configured. */
export interface Setup {
  readonly basePath: "" | "/api";
  readonly cors: boolean;
  readonly maxTasks: number;
  readonly maxBodyBytes: number | undefined;
}

/**
 * Where a probe goes, below the base path: the list, the OpenAPI document, the home page, a path
 * that does not exist, the list's path without the base path, or a path whose answer the contract
 * leaves open.
 */
export interface Target {
  readonly kind: "list" | "document" | "home" | "unknown" | "list-without-base" | "not-ruled";
  readonly path: string;
}

/** A body: text (sent as UTF-8), raw bytes, arrays nested `nested` deep (alone or as the title), or a task `overLimit` bytes past MAX_BODY_BYTES. */
export type BodySpec =
  | { readonly text: string }
  | { readonly bytes: Uint8Array }
  | { readonly nested: number; readonly asTitle: boolean }
  | { readonly overLimit: number };

/** One request of a sequence. `ifNoneMatch` is resolved against the list's ETag just before sending. */
export interface Probe {
  readonly method: string;
  readonly target: Target;
  readonly query: string;
  readonly contentType: string | undefined;
  readonly contentLength: "none" | "exact" | "understated" | "over-limit";
  readonly ifNoneMatch: "none" | "current" | "weak-current" | "any" | "stale";
  readonly headers: readonly (readonly [string, string])[];
  readonly body: BodySpec;
}

const DEFAULTS: Setup = { basePath: "", cors: false, maxTasks: 100_000, maxBodyBytes: undefined };

function probe(overrides: Partial<Probe>): Probe {
  return {
    method: "POST",
    target: { kind: "list", path: "/tasks" },
    query: "",
    contentType: "application/json",
    contentLength: "none",
    ifNoneMatch: "none",
    headers: [],
    body: { text: '{"title":"Example","completed":false}' },
    ...overrides,
  };
}

/**
 * Sequences every run of the property checks first: hostile inputs worth keeping whatever the
 * random generator picks, and any counterexample fast-check has found, so it never comes back.
 */
export const REGRESSIONS: [Setup, Probe[]][] = [
  [
    DEFAULTS,
    [
      probe({ body: { nested: 300_000, asTitle: true } }),
      probe({ body: { nested: 300_000, asTitle: false } }),
      probe({ body: { overLimit: 0 } }),
      probe({ body: { overLimit: 1 } }),
    ],
  ],
  [
    DEFAULTS,
    [
      probe({ body: { text: '{"__proto__":{"title":"Through the prototype","completed":true}}' } }),
      probe({ body: { text: '{"title":"Own","completed":true,"__proto__":{"id":99},"constructor":null,"id":7}' } }),
      probe({ body: { text: '{"title":"\\ud800 lone \\udfff","completed":false}' } }),
      probe({ body: { text: '{"title":"<script>alert(1)</script>","completed":true}' } }),
      probe({ method: "GET", body: { text: "" } }),
    ],
  ],
  [
    { ...DEFAULTS, maxBodyBytes: 64 },
    [
      probe({ contentLength: "understated", body: { overLimit: 10 } }),
      probe({ contentLength: "over-limit", body: { text: '{"title":"Small","completed":true}' } }),
      probe({ contentType: undefined, body: { overLimit: 0 } }),
    ],
  ],
  // Found by the property: a 404 outside BASE_PATH came without X-Content-Type-Options.
  [
    { ...DEFAULTS, maxTasks: 2, basePath: "/api" },
    [
      probe({}),
      probe({ method: "GET", ifNoneMatch: "current", body: { text: "" } }),
      probe({ target: { kind: "list-without-base", path: "/tasks" } }),
    ],
  ],
  [
    { ...DEFAULTS, cors: true, maxTasks: 3 },
    [
      probe({
        method: "OPTIONS",
        target: { kind: "document", path: "/openapi.json" },
        headers: [
          ["Origin", "https://evil.example"],
          ["Access-Control-Request-Headers", "<script>"],
        ],
      }),
      probe({ target: { kind: "unknown", path: "/<script>alert(1)</script>" }, query: "?<b>" }),
      probe({ method: "patch", headers: [["X-Request-Id", "<script>alert(1)</script>"]] }),
      probe({}),
      probe({}),
    ],
  ],
];
