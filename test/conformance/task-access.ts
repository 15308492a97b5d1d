// Who may read and change one task: reading is a read (READ_TOKENS), PUT, PATCH and DELETE are
// writes (WRITE_TOKENS); and CORS preflights for /tasks/{id} with the methods and headers it takes.
import { check, checkEqual } from "../support/check.ts";
import { checkErrorBody, checkUnchanged } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";
import { toTask } from "./task-changes.ts";

/** The access and CORS cases of /tasks/{id} for a target configured as `options` says. */
export function taskAccessCases(options: {
  tokens?: { readonly read: string; readonly write: string };
  corsOrigins?: "*" | readonly string[];
}): StatefulCase[] {
  const cases: StatefulCase[] = [];
  const { tokens, corsOrigins } = options;
  if (tokens !== undefined) {
    cases.push({
      name: "a task is read with a read token; without a token it returns 401, and a read token's PUT, PATCH and DELETE return 403 and change nothing",
      async run(client) {
        const { id } = await client.create({ title: "Guarded by tokens", completed: false });
        const read = { Authorization: `Bearer ${tokens.read}` };
        checkEqual((await client.send(toTask("GET", id, undefined, read))).status, 200, "GET with a read token");
        const before = await client.readList();
        for (const [method, body] of [
          ["GET", undefined],
          ["PATCH", { completed: true }],
          ["PUT", { title: "Taken", completed: true }],
          ["DELETE", undefined],
        ] as const) {
          const anonymous = await client.send({ ...toTask(method, id, body), anonymous: true });
          checkEqual(anonymous.status, 401, `status of ${method} /tasks/{id} without a token`);
          checkErrorBody(anonymous);
          if (method === "GET") continue;
          const reader = await client.send(toTask(method, id, body, read));
          checkEqual(reader.status, 403, `status of ${method} /tasks/{id} with a read token`);
          checkErrorBody(reader);
        }
        await checkUnchanged(client, before.text, before.etag);
      },
    });
  }
  if (corsOrigins !== undefined) {
    const origin = corsOrigins === "*" ? "https://any.example" : (corsOrigins[0] ?? "");
    cases.push({
      name: "with CORS on, a preflight for /tasks/{id} allows its methods and If-Match, and answers expose ETag",
      async run(client) {
        const { id } = await client.create({ title: "Changed from another origin", completed: false });
        const reply = await client.send({
          ...toTask("OPTIONS", id, undefined, {
            Origin: origin,
            "Access-Control-Request-Method": "PATCH",
            "Access-Control-Request-Headers": "if-match, content-type, authorization",
          }),
          anonymous: true,
        });
        checkEqual(reply.status, 204, "status of the preflight");
        const methods = (reply.headers.get("access-control-allow-methods") ?? "").split(",").map((m) => m.trim());
        for (const method of ["GET", "HEAD", "PUT", "PATCH", "DELETE"]) {
          check(methods.includes(method), `Access-Control-Allow-Methods must include ${method}, got ${methods}`);
        }
        check(!methods.includes("POST"), `a task takes no POST, yet the preflight allows it: ${methods}`);
        const headers = (reply.headers.get("access-control-allow-headers") ?? "").toLowerCase();
        check(headers.includes("if-match"), `Access-Control-Allow-Headers must include If-Match, got ${headers}`);
        const get = await client.send(toTask("GET", id, undefined, { Origin: origin }));
        const exposed = (get.headers.get("access-control-expose-headers") ?? "").toLowerCase();
        check(exposed.includes("etag"), `Access-Control-Expose-Headers must include ETag, got ${exposed}`);
      },
    });
  }
  return cases;
}
