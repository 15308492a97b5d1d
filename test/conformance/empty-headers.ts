// Headers sent with an empty value. An empty If-Match names no version, so a write it guards
// returns 412; an empty Content-Type is present and not JSON, so a body it describes returns 415.
// workerd drops an empty value of the headers it knows before the Worker sees the request (see
// docs/cloudflare.md), so on Workers these cases cannot pass and are skipped.
import { checkEqual } from "../support/check.ts";
import { jsonPost } from "./client.ts";
import { checkErrorBody, checkUnchanged } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";
import { toTask } from "./task-changes.ts";

const DROPPED =
  "workerd drops an empty If-Match or Content-Type before the Worker sees the request, and no compatibility flag keeps it";

/** The cases of empty header values; `dropped` when the target's runtime never shows them to the service. */
export function emptyHeaderCases(dropped: boolean): StatefulCase[] {
  const skip = dropped ? { skip: DROPPED } : {};
  return [
    {
      name: "an empty If-Match names no version: PUT, PATCH and DELETE return 412 and nothing changes",
      ...skip,
      async run(client) {
        const { id } = await client.create({ title: "Guarded by nothing", completed: false });
        const list = await client.readList();
        for (const request of [
          toTask("PATCH", id, { completed: true }, { "If-Match": "" }),
          toTask("PUT", id, { title: "Replaced", completed: true }, { "If-Match": "" }),
          toTask("DELETE", id, undefined, { "If-Match": "" }),
        ]) {
          const reply = await client.send(request);
          checkEqual(reply.status, 412, `status of ${request.method} with an empty If-Match (body ${reply.text})`);
          checkErrorBody(reply);
        }
        await checkUnchanged(client, list.text, list.etag);
      },
    },
    {
      name: "an empty Content-Type is not JSON: POST and PUT return 415, PATCH 415 with Accept-Patch, and nothing changes",
      ...skip,
      async run(client) {
        const { id } = await client.create({ title: "Typed by nothing", completed: false });
        const list = await client.readList();
        const empty = { "Content-Type": "" };
        for (const request of [
          { ...jsonPost("/tasks", { title: "Untyped", completed: false }), headers: empty },
          toTask("PUT", id, { title: "Untyped", completed: true }, empty),
          toTask("PATCH", id, { completed: true }, empty),
        ]) {
          const reply = await client.send(request);
          checkEqual(reply.status, 415, `status of ${request.method} with an empty Content-Type (body ${reply.text})`);
          checkErrorBody(reply);
          if (request.method === "PATCH") {
            checkEqual(reply.headers.get("accept-patch"), "application/merge-patch+json", "Accept-Patch of the 415");
          }
        }
        await checkUnchanged(client, list.text, list.etag);
      },
    },
  ];
}
