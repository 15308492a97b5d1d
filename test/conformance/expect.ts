import { check, checkEqual, checkTask, clip, clipJson, type Task } from "../support/check.ts";
import { type Client, jsonPost, parseJson, type Reply, type RequestSpec } from "./client.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./table.ts";

/** What an error body must say beyond the shape every error body has. */
export interface ErrorRule {
  /** The exact message, for the messages the contract fixes. */
  readonly message?: string;
  /** A field the message must name. */
  readonly naming?: string;
}

/** What the body of a reply must be. */
export type BodyRule =
  /** No bytes at all. */
  | "empty"
  /** The list as a GET just before the request served it, byte for byte. */
  | "list"
  /** The OpenAPI document of the contract. */
  | "openapi"
  /** The home page: an HTML document whose Content-Security-Policy loads nothing from other origins. */
  | "page"
  /** The created task, appended to the list with the next id. */
  | { readonly created: { readonly title: string; readonly completed: boolean } }
  /** A JSON error body. */
  | { readonly error: ErrorRule };

/** One row of the table: a request and the response the contract prescribes. */
export interface TableCase {
  readonly name: string;
  readonly request: RequestSpec;
  readonly status: number;
  /** Header values the response must carry exactly; `null` for a header it must not carry. */
  readonly headers?: Readonly<Record<string, string | null>>;
  readonly body: BodyRule;
}

const JSON_MEDIA_TYPE = /^application\/(?:json|[^\s/;]+\+json)$/;

/** Sends the case's request and checks the response, and that a request that fails changes nothing. */
export async function runTableCase(client: Client, row: TableCase): Promise<void> {
  const { method } = row.request;
  const before = row.body === "list" || method !== "GET" ? await client.readList() : undefined;
  const reply = await client.send(row.request);
  checkEqual(reply.status, row.status, () => `status (body ${clipJson(reply.text)})`);
  for (const [name, value] of Object.entries(row.headers ?? {})) {
    checkEqual(reply.headers.get(name), value, `${name} header`);
  }
  const body = row.body;
  if (body === "empty") {
    checkEqual(reply.text, "", "body");
  } else if (body === "list") {
    check(before !== undefined, "the list was read before the request");
    checkEqual(reply.text, before.text, "body (the list as GET /tasks served it just before)");
  } else if (body === "openapi") {
    checkOpenApi(reply);
  } else if (body === "page") {
    checkPage(reply);
  } else if ("error" in body) {
    checkErrorBody(reply, body.error);
  } else if (before !== undefined) {
    await checkCreated(client, reply, before.tasks, body.created);
  }
  if (before !== undefined && row.status !== 200) await checkUnchanged(client, before.text, before.etag);
}

/** Checks the shape every error other than 405 has, and what `rule` adds. */
export function checkErrorBody(reply: Reply, rule: ErrorRule = {}): void {
  checkEqual(reply.headers.get("content-type"), "application/json", "Content-Type of the error");
  const body = parseJson(reply, "the error");
  check(typeof body === "object" && body !== null && !Array.isArray(body), "the error body must be a JSON object");
  checkEqual(Object.keys(body), ["message"], "keys of the error body");
  const message = (body as { message: unknown }).message;
  check(typeof message === "string", `the error message must be a string, got ${JSON.stringify(message)}`);
  if (rule.message !== undefined) checkEqual(message, rule.message, "error message");
  if (rule.naming !== undefined) {
    check(message.includes(rule.naming), `the error message must name ${rule.naming}, got ${JSON.stringify(message)}`);
  }
  check(message.trim() !== "" && !message.includes("\n"), `the error message must be one line, got ${clip(message)}`);
  check(!/[.!?]\s+\S/.test(message), `the error message must be one sentence, got ${JSON.stringify(message)}`);
  check(!message.endsWith("."), `the error message must not end with a period, got ${JSON.stringify(message)}`);
  check(
    /^(?:\p{Lu}|title\b|completed\b|after\b|limit\b)/u.test(message),
    `the error message must be in sentence case, got ${JSON.stringify(message)}`,
  );
}

/** Checks that the list, and its ETag, are what they were. */
export async function checkUnchanged(client: Client, text: string, etag: string | null): Promise<void> {
  const after = await client.readList();
  checkEqual(after.text, text, "the list after the request (it must not change)");
  checkEqual(after.etag, etag, "the ETag after the request (the list must not change)");
}

/**
 * Checks that a POST to a full list is still refused for its size, media type, JSON and fields
 * before the limit is named (413, 415, 400 rather than 507), and that none of them changes the list.
 */
export async function checkRefusedBeforeFull(client: Client): Promise<void> {
  const before = await client.readList();
  const json = { "Content-Type": "application/json" };
  const maxBodyBytes = client.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const expectations: [RequestSpec, number][] = [
    [{ method: "POST", path: "/tasks", headers: json, body: { streamed: new Uint8Array(maxBodyBytes + 1) } }, 413],
    [{ method: "POST", path: "/tasks", headers: { "Content-Type": "text/plain" }, body: "{}" }, 415],
    [{ method: "POST", path: "/tasks", headers: json, body: "{" }, 400],
    [jsonPost("/tasks", { title: "No status" }), 400],
    [jsonPost("/tasks", { title: 1, completed: true }), 400],
  ];
  for (const [request, status] of expectations) {
    const reply = await client.send(request);
    checkEqual(reply.status, status, `status of a POST to a full list that must be answered ${status} before 507`);
  }
  await checkUnchanged(client, before.text, before.etag);
}

async function checkCreated(
  client: Client,
  reply: Reply,
  before: readonly Task[],
  sent: { readonly title: string; readonly completed: boolean },
): Promise<void> {
  checkEqual(reply.headers.get("content-type"), "application/json", "Content-Type of the created task");
  const created = parseJson(reply, "the POST");
  checkTask(created, "the created task");
  const expected = { id: (before.at(-1)?.id ?? 0) + 1, title: sent.title, completed: sent.completed };
  checkEqual(created, expected, "created task (id of the last task plus 1, title and completed as sent)");
  const after = await client.readList();
  checkEqual(after.tasks.length, before.length + 1, "length of the list after the POST");
  checkEqual(after.tasks.slice(0, before.length), before, "the tasks before the new one (the list is append-only)");
  checkEqual(after.tasks.at(-1), expected, "last task of the list after the POST");
}

function checkOpenApi(reply: Reply): void {
  const mediaType = reply.headers.get("content-type")?.split(";", 1)[0]?.trim() ?? "";
  check(JSON_MEDIA_TYPE.test(mediaType), `the OpenAPI document must be served as JSON, got ${mediaType}`);
  const document = parseJson(reply, "GET /openapi.json");
  check(typeof document === "object" && document !== null, "the OpenAPI document must be a JSON object");
  const { openapi, paths } = document as { openapi?: unknown; paths?: unknown };
  check(
    typeof openapi === "string" && /^3\.\d+\.\d+$/.test(openapi),
    `openapi must be a 3.x.y version, got ${openapi}`,
  );
  check(typeof paths === "object" && paths !== null, "the OpenAPI document must have paths");
  for (const path of ["/tasks", "/index.php"]) {
    check(
      Object.keys(paths).some((key) => key.endsWith(path)),
      `the OpenAPI document must describe ${path}, got paths ${Object.keys(paths).join(", ")}`,
    );
  }
}

/** Source expressions that would let the page load from another origin, or run script or style not named by hash or nonce. */
const FOREIGN_SOURCE = /^(?:\*|[a-z][a-z0-9+.-]*:.*|[^']*\.[^']*|'unsafe-[a-z-]+')$/i;

function checkPage(reply: Reply): void {
  check(/^<!doctype html>/i.test(reply.text), `the home page must be an HTML document, got ${clip(reply.text, 80)}`);
  const policy = reply.headers.get("content-security-policy");
  check(policy !== null, "the home page must carry a Content-Security-Policy");
  const directives = policy.split(";").map((directive) => directive.trim().split(/\s+/));
  check(
    directives.some(([name]) => name === "default-src"),
    `the policy must set default-src, so that nothing it leaves out is allowed: ${policy}`,
  );
  for (const [name, ...sources] of directives) {
    const foreign = sources.filter((source) => FOREIGN_SOURCE.test(source));
    check(foreign.length === 0, `${name} must allow no other origin and no unsafe source, got ${foreign.join(" ")}`);
  }
}
