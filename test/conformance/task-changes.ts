// The contract's "Changing a task": reading, editing and deleting one task at /tasks/{id}, with
// If-Match, ids that are never given twice, and keys that replay a task as it was first answered.
import { check, checkEqual, checkTask, fail, type Task } from "../support/check.ts";
import { type Client, jsonPost, parseJson, type Reply, type RequestSpec } from "./client.ts";
import { checkErrorBody, checkUnchanged } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";

const TASK_METHODS = "GET, HEAD, PUT, PATCH, DELETE";
const MERGE_PATCH = "application/merge-patch+json";
/** `{id}` forms that are not an id as the list writes it. */
const NOT_IDS = ["007", "0", "abc", "1.0", "-1", "1e3", "1234567890123456"];

/** A request to task `id` with a JSON body of `value`, or none, and `headers`. */
export function toTask(method: string, id: number, value?: unknown, headers: Record<string, string> = {}): RequestSpec {
  const spec: RequestSpec = { method, path: `/tasks/${id}`, headers };
  return value === undefined ? spec : { ...spec, body: JSON.stringify(value) };
}

/** The response to a write that must succeed, as the task it carries. */
export function changed(reply: Reply, what: string): Task {
  checkEqual(reply.status, 200, `status of ${what} (body ${reply.text})`);
  const task = parseJson(reply, what);
  checkTask(task, `the task ${what} answered`);
  return task;
}

/** Reads task `id` with GET, checks the headers the contract gives it, and returns it with its ETag. */
export async function readTask(client: Client, id: number): Promise<{ task: Task; etag: string; reply: Reply }> {
  const reply = await client.send(toTask("GET", id));
  const task = changed(reply, `GET /tasks/${id}`);
  const etag = reply.headers.get("etag");
  check(etag !== null && /^"[!#-~]*"$/.test(etag), `GET /tasks/${id} must send a strong ETag, got ${etag}`);
  checkEqual(reply.headers.get("cache-control"), "no-cache", `Cache-Control of GET /tasks/${id}`);
  checkEqual(reply.headers.get("accept-patch"), MERGE_PATCH, `Accept-Patch of GET /tasks/${id}`);
  return { task, etag, reply };
}

/** Checks a 404 or 410 for a task that is not in the list, with the contract's body. */
function checkMissing(reply: Reply, status: 404 | 410, what: string): void {
  checkEqual(reply.status, status, `status of ${what}`);
  checkErrorBody(reply, status === 404 ? { message: "Not found" } : {});
}

/** The cases of /tasks/{id} for any target. */
export function taskChangeCases(): StatefulCase[] {
  return [
    {
      name: "GET /tasks/{id} answers the task exactly as the list serves it, with a strong ETag, no-cache and Accept-Patch; HEAD the same without a body; If-None-Match 304",
      async run(client) {
        const created = await client.create({ title: "Read on its own", completed: false });
        const { task, etag, reply } = await readTask(client, created.id);
        checkEqual(task, created, "the task read on its own");
        const list = await client.readList();
        check(list.text.includes(reply.text), "the task's JSON must be the bytes the list serves for it");
        const head = await client.send(toTask("HEAD", created.id));
        checkEqual([head.status, head.text, head.headers.get("etag")], [200, "", etag], "HEAD /tasks/{id}");
        const again = await client.send(toTask("GET", created.id, undefined, { "If-None-Match": etag }));
        checkEqual([again.status, again.text], [304, ""], "GET /tasks/{id} with its ETag");
        const other = await readTask(client, 1).catch(() => undefined);
        if (other !== undefined) check(other.etag !== etag, "two tasks must not share an ETag");
      },
    },
    {
      name: "an {id} that is not written as the list writes ids, or an id never given, returns 404 Not found; /index.php/{id} does not exist",
      async run(client) {
        const list = await client.readList();
        const never = 900_000_000_000_000;
        for (const path of [...NOT_IDS.map((id) => `/tasks/${id}`), `/tasks/${never}`, "/index.php/1"]) {
          for (const method of ["GET", "PATCH", "DELETE"]) {
            checkMissing(await client.send({ method, path }), 404, `${method} ${path}`);
          }
        }
        await checkUnchanged(client, list.text, list.etag);
      },
    },
    {
      name: "other methods on /tasks/{id} return 405 with an empty body and Allow: GET, HEAD, PUT, PATCH, DELETE",
      async run(client) {
        const { id } = await client.create({ title: "Allows five methods", completed: false });
        for (const method of ["POST", "PROPFIND", ...(client.options.corsOrigins === undefined ? ["OPTIONS"] : [])]) {
          const reply = await client.send(toTask(method, id));
          checkEqual([reply.status, reply.text], [405, ""], `status and body of ${method} /tasks/${id}`);
          checkEqual(reply.headers.get("allow"), TASK_METHODS, `Allow of ${method} /tasks/${id}`);
        }
      },
    },
    {
      name: "PATCH applies a merge patch of title and completed, answers the task with its new ETag, and changes the list and its ETag",
      core: true,
      async run(client) {
        const created = await client.create({ title: "Before the patch", completed: false });
        const before = await readTask(client, created.id);
        const list = await client.readList();
        const contentTypes = [
          MERGE_PATCH,
          "application/json",
          "application/merge-patch+json; charset=utf-8",
          undefined,
        ];
        let expected = created;
        for (const [i, type] of contentTypes.entries()) {
          const patch = i % 2 === 0 ? { completed: !expected.completed } : { title: `Patched ${i}`, id: 77, extra: 1 };
          const headers: Record<string, string> = type === undefined ? {} : { "Content-Type": type };
          const reply = await client.send(toTask("PATCH", created.id, patch, headers));
          expected = { ...expected, ...("title" in patch ? { title: patch.title } : { completed: patch.completed }) };
          checkEqual(changed(reply, `PATCH with ${type ?? "no Content-Type"}`), expected, "the patched task");
          const now = await readTask(client, created.id);
          checkEqual(reply.headers.get("etag"), now.etag, "the ETag a PATCH answers is the task's new ETag");
          check(now.etag !== before.etag, "the task's ETag must change when the task changes");
        }
        const after = await client.readList();
        check(after.etag !== list.etag, "the list's ETag must change when a task changes");
        checkEqual(
          after.tasks.find((task) => task.id === created.id),
          expected,
          "the patched task in the list",
        );
        const stale = await client.send(toTask("GET", created.id, undefined, { "If-None-Match": before.etag }));
        checkEqual(stale.status, 200, "GET /tasks/{id} with the ETag from before the patch");
      },
    },
    {
      name: "a PATCH that changes nothing, {} among them, returns 200 with the task and its ETag, and the list's ETag stays",
      async run(client) {
        const created = await client.create({ title: "Left as it is", completed: true });
        const { etag } = await readTask(client, created.id);
        const list = await client.readList();
        for (const patch of [{}, { title: created.title }, { completed: true, id: 5 }]) {
          const reply = await client.send(toTask("PATCH", created.id, patch, { "Content-Type": MERGE_PATCH }));
          checkEqual(changed(reply, `PATCH ${JSON.stringify(patch)}`), created, "the unchanged task");
          checkEqual(reply.headers.get("etag"), etag, "the ETag of a PATCH that changed nothing");
        }
        await checkUnchanged(client, list.text, list.etag);
      },
    },
    {
      name: "a PATCH with another Content-Type returns 415 with Accept-Patch, and a malformed patch 400 naming the field; nothing changes",
      async run(client) {
        const { id } = await client.create({ title: "Refuses bad patches", completed: false });
        const list = await client.readList();
        for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json-patch+json"]) {
          const reply = await client.send(toTask("PATCH", id, { completed: true }, { "Content-Type": type }));
          checkEqual(reply.status, 415, `status of a PATCH sent as ${type}`);
          checkErrorBody(reply);
          checkEqual(reply.headers.get("accept-patch"), MERGE_PATCH, "Accept-Patch of the 415");
        }
        const bad: [string, string | undefined][] = [
          ['{"title":null}', "title"],
          ['{"completed":null}', "completed"],
          ['{"title":5}', "title"],
          ['{"completed":"yes"}', "completed"],
          ["[]", undefined],
          ["null", undefined],
          ["{", undefined],
          ["", undefined],
        ];
        for (const [body, naming] of bad) {
          const reply = await client.send({ method: "PATCH", path: `/tasks/${id}`, headers: {}, body });
          checkEqual(reply.status, 400, `status of PATCH ${body}`);
          checkErrorBody(reply, naming === undefined ? {} : { naming });
        }
        await checkUnchanged(client, list.text, list.etag);
      },
    },
    {
      name: "PUT replaces title and completed with POST's body rules, answers the task without an ETag, and never creates a task",
      async run(client) {
        const { id } = await client.create({ title: "Before PUT", completed: false });
        const reply = await client.send(toTask("PUT", id, { id: 1, title: "After PUT", completed: true, x: 1 }));
        checkEqual(changed(reply, "PUT"), { id, title: "After PUT", completed: true }, "the task a PUT answered");
        checkEqual(reply.headers.get("etag"), null, "ETag of a PUT's answer");
        const list = await client.readList();
        const missing = await client.send(toTask("PUT", id, { title: "Only a title" }));
        checkEqual(missing.status, 400, "status of a PUT without completed");
        checkErrorBody(missing, { message: "Title or completed status is missing" });
        const typed = await client.send(toTask("PUT", id, { title: "Typed", completed: "no" }));
        checkEqual(typed.status, 400, "status of a PUT with a string completed");
        checkErrorBody(typed, { naming: "completed" });
        const text = await client.send({ ...toTask("PUT", id, {}), headers: { "Content-Type": "text/plain" } });
        checkEqual(text.status, 415, "status of a PUT sent as text/plain");
        const never = await client.send(toTask("PUT", 900_000_000_000_000, { title: "New", completed: false }));
        checkMissing(never, 404, "PUT of an id never given");
        await checkUnchanged(client, list.text, list.etag);
      },
    },
    {
      name: "DELETE returns 204 with no body; the task leaves the list, later reads and writes of it return 410, and its id is never given again",
      core: true,
      async run(client) {
        const doomed = await client.create({ title: "Deleted soon", completed: false });
        const list = await client.readList();
        const reply = await client.send(toTask("DELETE", doomed.id));
        checkEqual([reply.status, reply.text], [204, ""], "status and body of DELETE");
        const after = await client.readList();
        checkEqual(
          after.tasks,
          list.tasks.filter((task) => task.id !== doomed.id),
          "the list after DELETE",
        );
        check(after.etag !== list.etag, "the list's ETag must change when a task is deleted");
        for (const request of [
          toTask("GET", doomed.id),
          toTask("HEAD", doomed.id),
          toTask("DELETE", doomed.id),
          toTask("PATCH", doomed.id, { completed: true }),
          toTask("PUT", doomed.id, { title: "Back", completed: false }),
        ]) {
          const gone = await client.send(request);
          checkEqual(gone.status, 410, `status of ${request.method} of a deleted task`);
          if (request.method !== "HEAD") checkErrorBody(gone);
        }
        const next = await client.create({ title: "After the last was deleted", completed: true });
        checkEqual(next.id, doomed.id + 1, "id of the task after the last task was deleted");
      },
    },
    ...preconditionCases(),
    {
      name: "an Idempotency-Key replays the task as it was first answered, after it was edited and after it was deleted",
      core: true,
      async run(client) {
        const key = `changes-${crypto.randomUUID()}`;
        const task = { title: "Keyed, then changed", completed: false };
        const keyed = (): RequestSpec => {
          const post = jsonPost("/tasks", task);
          return { ...post, headers: { ...post.headers, "Idempotency-Key": key } };
        };
        const first = await client.send(keyed());
        const { id } = changed(first, "the keyed POST");
        changed(await client.send(toTask("PATCH", id, { title: "Changed since" })), "the PATCH");
        for (const step of ["edited", "deleted"]) {
          if (step === "deleted") checkEqual((await client.send(toTask("DELETE", id))).status, 204, "DELETE");
          const list = await client.readList();
          const again = await client.send(keyed());
          checkEqual([again.status, again.text], [200, first.text], `the keyed POST again once its task was ${step}`);
          checkEqual(again.headers.get("idempotent-replayed"), "true", "Idempotent-Replayed of the replay");
          await checkUnchanged(client, list.text, list.etag);
        }
      },
    },
  ];
}

/** If-Match on PUT, PATCH and DELETE, and where it stands among the other checks. */
function preconditionCases(): StatefulCase[] {
  return [
    {
      name: "If-Match with the task's ETag or * lets a write through; another ETag, a weak one or another task's returns 412 and nothing changes",
      async run(client) {
        const { id } = await client.create({ title: "Guarded", completed: false });
        const { etag } = await readTask(client, id);
        const other = await readTask(client, (await client.create({ title: "Another", completed: false })).id);
        const list = await client.readList();
        for (const stale of [`W/${etag}`, '"not-a-version"', other.etag]) {
          for (const request of [
            toTask("PATCH", id, { completed: true }, { "If-Match": stale }),
            toTask("PUT", id, { title: "Replaced", completed: true }, { "If-Match": stale }),
            toTask("DELETE", id, undefined, { "If-Match": stale }),
          ]) {
            const reply = await client.send(request);
            checkEqual(reply.status, 412, `status of ${request.method} with If-Match: ${stale}`);
            checkErrorBody(reply);
          }
        }
        await checkUnchanged(client, list.text, list.etag);
        const listed = await client.send(toTask("PATCH", id, { completed: true }, { "If-Match": `"x", ${etag}` }));
        changed(listed, "a PATCH whose If-Match lists the current ETag");
        const starred = await client.send(
          toTask("PUT", id, { title: "Starred", completed: false }, { "If-Match": "*" }),
        );
        changed(starred, "a PUT with If-Match: *");
        const old = await client.send(toTask("DELETE", id, undefined, { "If-Match": etag }));
        checkEqual(old.status, 412, "status of a DELETE with the ETag from before two writes");
        const { etag: now } = await readTask(client, id);
        checkEqual((await client.send(toTask("DELETE", id, undefined, { "If-Match": now }))).status, 204, "DELETE");
      },
    },
    {
      name: "checks come in the contract's order: the task (404, 410) before If-Match (412), If-Match before the body (415, 400)",
      async run(client) {
        const { id } = await client.create({ title: "Checked in order", completed: false });
        const stale = { "If-Match": '"stale"' };
        const plain = { "Content-Type": "text/plain", ...stale };
        checkEqual((await client.send(toTask("PATCH", id, "{", plain))).status, 412, "stale If-Match and bad body");
        const list = await client.readList();
        checkEqual((await client.send(toTask("DELETE", id))).status, 204, "DELETE");
        checkEqual((await client.send(toTask("PATCH", id, { completed: 1 }, plain))).status, 410, "a deleted task");
        const never = await client.send(toTask("DELETE", 900_000_000_000_001, undefined, stale));
        checkEqual(never.status, 404, "status of a DELETE of an id never given, with If-Match");
        check((await client.readList()).etag !== list.etag, "only the DELETE changed the list");
      },
    },
    {
      name: "two writes with the same If-Match at once: one 200 and one 412; two such DELETEs: one 204, and 410 for the task it deleted",
      core: true,
      async run(client) {
        for (const method of ["PATCH", "PUT", "DELETE"]) {
          const { id } = await client.create({ title: `Raced by ${method}`, completed: false });
          const { etag } = await readTask(client, id);
          const body = method === "DELETE" ? undefined : { title: `Won by one ${method}`, completed: true };
          const replies = await Promise.all(
            [0, 1].map(() => client.send(toTask(method, id, body, { "If-Match": etag }))),
          );
          const statuses = replies.map((reply) => reply.status).sort();
          // The task is checked before If-Match: the DELETE that comes second finds it deleted.
          const expected = method === "DELETE" ? [204, 410] : [200, 412];
          checkEqual(statuses, expected, `statuses of two ${method}s with one If-Match`);
        }
      },
    },
  ];
}

/** Fails unless `value` is what the contract's `delete` event carries for task `id`. */
export function checkDeleteData(value: string, id: number): void {
  if (value !== `{"id":${id}}`) fail(`a delete event must carry {"id":${id}}, got ${value}`);
}
