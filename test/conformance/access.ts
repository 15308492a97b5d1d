import { check, checkEqual } from "../support/check.ts";
import { jsonPost, type Reply, type RequestSpec } from "./client.ts";
import { checkErrorBody, checkUnchanged } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./table.ts";

const CHALLENGE = 'Bearer realm="tasks"';
const INVALID_TOKEN = 'Bearer realm="tasks", error="invalid_token"';
const UNKNOWN = "unknown-token-0123456789";
const TASK_PATHS = ["/tasks", "/index.php"];

/**
 * The rules of "Access" for a target with READ_TOKENS and WRITE_TOKENS set: 401 with a Bearer
 * challenge without a known token, 403 for a read token on a POST, both before the body is looked
 * at, and the OpenAPI document open to anyone.
 */
export function accessCases(tokens: { readonly read: string; readonly write: string }): StatefulCase[] {
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  return [
    ...TASK_PATHS.map(
      (path): StatefulCase => ({
        name: `without a token, GET, HEAD and POST ${path} return 401 with WWW-Authenticate: ${CHALLENGE}, and nothing is added`,
        async run(client) {
          const before = await client.readList();
          for (const request of [
            { method: "GET", path },
            { ...jsonPost(path, { title: "Anonymous", completed: false }) },
          ]) {
            const reply = await client.send({ ...request, anonymous: true });
            checkChallenge(reply, CHALLENGE, request.method);
            checkErrorBody(reply);
          }
          const head = await client.send({ method: "HEAD", path, anonymous: true });
          checkEqual(head.status, 401, "status of HEAD without a token");
          checkEqual(head.headers.get("www-authenticate"), CHALLENGE, "WWW-Authenticate of HEAD");
          checkEqual(head.text, "", "body of HEAD");
          await checkUnchanged(client, before.text, before.etag);
        },
      }),
    ),
    {
      name: 'a token the service does not know returns 401 with error="invalid_token", on GET and POST',
      async run(client) {
        const before = await client.readList();
        for (const request of [
          { method: "GET", path: "/tasks" },
          jsonPost("/tasks", { title: "X", completed: false }),
        ]) {
          const reply = await client.send({ ...request, headers: { ...request.headers, ...bearer(UNKNOWN) } });
          checkChallenge(reply, INVALID_TOKEN, request.method);
          checkErrorBody(reply);
          check(!reply.text.includes(UNKNOWN), "the response must not echo the token");
        }
        await checkUnchanged(client, before.text, before.etag);
      },
    },
    {
      name: "an Authorization header of another scheme counts as no token",
      async run(client) {
        const reply = await client.send({
          method: "GET",
          path: "/tasks",
          headers: { Authorization: `Basic ${btoa(`u:${tokens.read}`)}` },
        });
        checkChallenge(reply, CHALLENGE, "GET");
      },
    },
    {
      name: "a read token reads the list; a POST with it returns 403 and adds nothing",
      async run(client) {
        const read = await client.send({ method: "GET", path: "/index.php", headers: bearer(tokens.read) });
        checkEqual(read.status, 200, "status of GET with a read token");
        const before = await client.readList();
        checkEqual(read.text, before.text, "the list a read token sees");
        const reply = await client.send({
          ...jsonPost("/tasks", { title: "From a reader", completed: false }),
          headers: { "Content-Type": "application/json", ...bearer(tokens.read) },
        });
        checkEqual(reply.status, 403, "status of POST with a read token");
        checkErrorBody(reply);
        await checkUnchanged(client, before.text, before.etag);
      },
    },
    {
      name: "access is checked before the body: without a token a POST returns 401, with a read token 403, whatever its size, type or JSON",
      async run(client) {
        const before = await client.readList();
        const maxBodyBytes = client.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
        const json = { "Content-Type": "application/json" };
        const bodies: RequestSpec[] = [
          { method: "POST", path: "/tasks", headers: json, body: { streamed: new Uint8Array(maxBodyBytes + 1) } },
          { method: "POST", path: "/tasks", headers: { "Content-Type": "text/plain" }, body: "{}" },
          { method: "POST", path: "/tasks", headers: json, body: "{" },
          jsonPost("/tasks", { title: "No status" }),
        ];
        for (const request of bodies) {
          const anonymous = await client.send({ ...request, anonymous: true });
          checkEqual(anonymous.status, 401, `status without a token of a POST with body ${describe(request)}`);
          const reader = await client.send({ ...request, headers: { ...request.headers, ...bearer(tokens.read) } });
          checkEqual(reader.status, 403, `status with a read token of a POST with body ${describe(request)}`);
        }
        await checkUnchanged(client, before.text, before.etag);
      },
    },
    {
      name: "a conditional GET or HEAD without a token returns 401, and with a read token 304",
      async run(client) {
        const { etag } = await client.readList();
        check(etag !== null, "GET /tasks must send an ETag");
        for (const method of ["GET", "HEAD"]) {
          const headers = { "If-None-Match": etag };
          const anonymous = await client.send({ method, path: "/tasks", headers, anonymous: true });
          checkEqual(anonymous.status, 401, `status of a conditional ${method} without a token`);
          const reader = await client.send({ method, path: "/tasks", headers: { ...headers, ...bearer(tokens.read) } });
          checkEqual(reader.status, 304, `status of a conditional ${method} with a read token`);
        }
      },
    },
    {
      name: "the OpenAPI document needs no token, and declares the bearer scheme",
      async run(client) {
        const reply = await client.send({ method: "GET", path: "/openapi.json", anonymous: true });
        checkEqual(reply.status, 200, "status of GET /openapi.json without a token");
        const document = JSON.parse(reply.text) as { components?: { securitySchemes?: Record<string, unknown> } };
        const schemes = Object.values(document.components?.securitySchemes ?? {}) as { scheme?: string }[];
        check(
          schemes.some((scheme) => scheme.scheme?.toLowerCase() === "bearer"),
          "the OpenAPI document must declare a bearer security scheme",
        );
        check(
          !reply.text.includes(tokens.read) && !reply.text.includes(tokens.write),
          "the document must not show a token",
        );
      },
    },
  ];
}

function checkChallenge(reply: Reply, challenge: string, what: string): void {
  checkEqual(reply.status, 401, `status of ${what}`);
  checkEqual(reply.headers.get("www-authenticate"), challenge, `WWW-Authenticate of ${what}`);
}

function describe(request: RequestSpec): string {
  const { body } = request;
  if (body === undefined || typeof body === "string") return JSON.stringify(body ?? "");
  return `of ${"streamed" in body ? body.streamed.byteLength : body.byteLength} bytes`;
}
