import { check, checkEqual, fail, type Task } from "../support/check.ts";
import { type Client, jsonPost, type Reply, type RequestSpec } from "./client.ts";
import { checkErrorBody, checkRefusedBeforeFull, checkUnchanged } from "./expect.ts";

/** A check that needs more than one request. */
export interface StatefulCase {
  readonly name: string;
  /**
   * One of the few cases that, between them, send each kind of request to the store once (read,
   * append, keyed append, concurrent appends, edit, delete, racing writes, changes followed over
   * Server-Sent Events and WebSocket): enough where the store's code is covered elsewhere and only
   * the way a runtime reaches it is new.
   */
  readonly core?: true;
  /** Why the target cannot run this case, which is then reported as skipped rather than run. */
  readonly skip?: string;
  run(client: Client): Promise<void>;
}

const TASK_PATH_NAMES = ["/tasks", "/index.php"];
/** How many concurrent POSTs the atomicity case sends. */
export const CONCURRENT_POSTS = 100;
/** Filling a list up to MAX_TASKS is refused beyond this many POSTs, so that a large limit cannot stall the run. */
const MAX_FILL = 5_000;
const FILL_BATCH = 20;
/** Headers that describe one message rather than the resource, so GET and HEAD may differ in them. */
const FRAMING_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

/** The case that must run before anything changes the list; only for a fresh target. */
export const freshListCase: StatefulCase = {
  name: "a fresh service holds exactly the two initial tasks, ids 1 and 2, one completed and one not",
  core: true,
  async run(client) {
    const { tasks } = await client.readList();
    checkEqual(
      tasks.map((task) => task.id),
      [1, 2],
      "ids of the initial list",
    );
    checkEqual(tasks.map((task) => task.completed).sort(), [false, true], "completed values of the initial tasks");
  },
};

/** Checks of the list across requests: ids, ETags, HEAD, concurrency. */
export function statefulCases(): StatefulCase[] {
  return [
    {
      name: "GET serves every task with exactly id, title and completed, in insertion order with consecutive ids",
      async run(client) {
        const { tasks } = await client.readList();
        checkConsecutive(tasks, "the list");
      },
    },
    {
      name: "new tasks take the id of the last task plus 1, and ids continue from one POST to the next",
      core: true,
      async run(client) {
        const before = await client.readList();
        const first = await client.create({ title: "First of two", completed: false });
        const second = await client.create({ title: "Second of two", completed: true });
        const last = before.tasks.at(-1)?.id ?? 0;
        checkEqual([first.id, second.id], [last + 1, last + 2], "ids of two POSTs in a row");
        const after = await client.readList();
        checkEqual(after.tasks, [...before.tasks, first, second], "the list after two POSTs");
      },
    },
    {
      name: "a run of failing requests leaves the list and its ETag unchanged",
      async run(client) {
        const before = await client.readList();
        const failing: RequestSpec[] = [
          jsonPost("/tasks", { title: "No status" }),
          jsonPost("/index.php", { completed: true }),
          jsonPost("/tasks", { title: 1, completed: true }),
          { method: "POST", path: "/tasks", headers: { "Content-Type": "application/json" }, body: "{" },
          { method: "POST", path: "/tasks", headers: { "Content-Type": "text/plain" }, body: "{}" },
          { method: "PUT", path: "/tasks", headers: { "Content-Type": "application/json" }, body: "{}" },
          { method: "DELETE", path: "/index.php" },
        ];
        for (const request of failing) {
          const reply = await client.send(request);
          check(reply.status >= 400, `${request.method} ${request.path} must fail, got ${reply.status}`);
        }
        await checkUnchanged(client, before.text, before.etag);
      },
    },
    ...TASK_PATH_NAMES.map(
      (path): StatefulCase => ({
        name: `HEAD ${path} answers the headers GET answers, without a body`,
        run: (client) => checkHeadMatchesGet(client, path),
      }),
    ),
    {
      name: "HEAD /openapi.json answers the headers GET answers, without a body",
      run: (client) => checkHeadMatchesGet(client, "/openapi.json"),
    },
    {
      name: "GET sends an ETag that stays the same while the list is unchanged",
      async run(client) {
        const first = await client.send({ method: "GET", path: "/tasks" });
        const second = await client.send({ method: "GET", path: "/index.php" });
        const etag = first.headers.get("etag");
        check(etag !== null && etag !== "", "GET /tasks must send an ETag");
        checkEqual(second.headers.get("etag"), etag, "ETag of a second GET of the unchanged list");
      },
    },
    ...conditionalCases(),
    {
      name: "the ETag changes when the list changes, and the old ETag then gets 200 with the new list",
      core: true,
      async run(client) {
        const before = await client.readList();
        check(before.etag !== null, "GET /tasks must send an ETag");
        const created = await client.create({ title: "Changes the ETag", completed: false });
        const reply = await client.send({ method: "GET", path: "/tasks", headers: { "If-None-Match": before.etag } });
        checkEqual(reply.status, 200, "status of a GET with the ETag from before the POST");
        check(reply.headers.get("etag") !== before.etag, "the ETag must change when a task is added");
        const tasks = JSON.parse(reply.text) as Task[];
        checkEqual(tasks.at(-1), created, "last task of the list served to the old ETag");
      },
    },
    {
      name: `${CONCURRENT_POSTS} concurrent POSTs get distinct consecutive ids and all appear in the next GET`,
      core: true,
      async run(client) {
        const before = await client.readList();
        const sent = Array.from({ length: CONCURRENT_POSTS }, (_, i) => ({
          title: `Concurrent ${i}`,
          completed: i % 2 === 0,
        }));
        const created = await Promise.all(
          sent.map((task, i) => client.send(jsonPost(TASK_PATH_NAMES[i % 2] ?? "/tasks", task))),
        );
        const tasks = created.map((reply, i) => {
          checkEqual(reply.status, 200, `status of concurrent POST ${i}`);
          return JSON.parse(reply.text) as Task;
        });
        const last = before.tasks.at(-1)?.id ?? 0;
        checkEqual(
          tasks.map((task) => task.id).sort((a, b) => a - b),
          Array.from({ length: CONCURRENT_POSTS }, (_, i) => last + 1 + i),
          "ids given to the concurrent POSTs",
        );
        tasks.forEach((task, i) => {
          checkEqual({ title: task.title, completed: task.completed }, sent[i], `task created by concurrent POST ${i}`);
        });
        const after = await client.readList();
        checkEqual(after.tasks.slice(0, before.tasks.length), before.tasks, "the tasks that were there before");
        checkEqual(
          after.tasks.slice(before.tasks.length),
          [...tasks].sort((a, b) => a.id - b.id),
          "the tasks added by the concurrent POSTs, in id order",
        );
      },
    },
  ];
}

/** CORS checks: on for the configured origins, off (no CORS headers, OPTIONS 405) when none are. */
export function corsCases(origins: "*" | readonly string[] | undefined): StatefulCase[] {
  if (origins === undefined) {
    return [
      {
        name: "with CORS off, answers carry no Access-Control-Allow-Origin",
        async run(client) {
          const origin = { Origin: "https://elsewhere.example" };
          const get = await client.send({ method: "GET", path: "/tasks", headers: origin });
          checkEqual(get.headers.get("access-control-allow-origin"), null, "Access-Control-Allow-Origin of GET");
          const post = await client.send({ ...jsonPost("/tasks", {}), headers: origin });
          checkEqual(post.headers.get("access-control-allow-origin"), null, "Access-Control-Allow-Origin of POST");
        },
      },
      {
        name: "with CORS off, an OPTIONS preflight returns 405 with Allow: GET, HEAD, POST",
        async run(client) {
          const reply = await client.send(preflight("/tasks", "https://elsewhere.example"));
          checkEqual(reply.status, 405, "status of the preflight");
          checkEqual(reply.headers.get("allow"), "GET, HEAD, POST", "Allow header");
          checkEqual(reply.text, "", "body");
        },
      },
    ];
  }
  const allowed = origins === "*" ? "https://any.example" : (origins[0] ?? fail("CORS_ORIGINS names no origin"));
  const allowOrigin = origins === "*" ? "*" : allowed;
  const cases: StatefulCase[] = [
    ...TASK_PATH_NAMES.map(
      (path): StatefulCase => ({
        name: `with CORS on, an OPTIONS preflight for ${path} from an allowed origin returns 204 allowing GET, HEAD and POST, and the Authorization and Content-Type headers`,
        async run(client) {
          const request = preflight(path, allowed);
          const reply = await client.send({
            ...request,
            anonymous: true,
            headers: { ...request.headers, "Access-Control-Request-Headers": "authorization, content-type" },
          });
          checkEqual(reply.status, 204, "status of the preflight");
          const headers = (reply.headers.get("access-control-allow-headers") ?? "").toLowerCase();
          for (const header of ["authorization", "content-type"]) {
            check(headers.includes(header), `Access-Control-Allow-Headers must include ${header}, got ${headers}`);
          }
          checkEqual(reply.headers.get("access-control-allow-origin"), allowOrigin, "Access-Control-Allow-Origin");
          const methods = (reply.headers.get("access-control-allow-methods") ?? "").split(",").map((m) => m.trim());
          for (const method of ["GET", "HEAD", "POST"]) {
            check(methods.includes(method), `Access-Control-Allow-Methods must include ${method}, got ${methods}`);
          }
        },
      }),
    ),
    {
      name: "with CORS on, GET, HEAD and POST answers to an allowed origin carry Access-Control-Allow-Origin",
      async run(client) {
        const origin = { Origin: allowed };
        const replies: [string, Reply][] = [
          ["GET", await client.send({ method: "GET", path: "/tasks", headers: origin })],
          ["HEAD", await client.send({ method: "HEAD", path: "/index.php", headers: origin })],
          [
            "POST",
            await client.send({
              ...jsonPost("/tasks", { title: "From a browser", completed: false }),
              headers: { ...origin, "Content-Type": "application/json" },
            }),
          ],
          [
            "failing POST",
            await client.send({
              ...jsonPost("/tasks", {}),
              headers: { ...origin, "Content-Type": "application/json" },
            }),
          ],
        ];
        for (const [what, reply] of replies) {
          checkEqual(
            reply.headers.get("access-control-allow-origin"),
            allowOrigin,
            `Access-Control-Allow-Origin of ${what}`,
          );
        }
      },
    },
  ];
  if (origins !== "*") {
    cases.push({
      name: "with CORS on, answers to an origin that is not allowed do not allow it",
      async run(client) {
        const stranger = "https://not-allowed.example";
        for (const request of [
          { method: "GET", path: "/tasks", headers: { Origin: stranger } },
          preflight("/tasks", stranger),
        ]) {
          const reply = await client.send(request);
          const header = reply.headers.get("access-control-allow-origin");
          check(header !== stranger && header !== "*", `${request.method} must not allow ${stranger}, got ${header}`);
        }
      },
    });
  }
  return cases;
}

/** The MAX_TASKS cases; they fill the list, so they run last. */
export function limitCases(maxTasks: number): StatefulCase[] {
  return [
    {
      name: "POST returns 507 once the list holds MAX_TASKS tasks, and adds nothing; a key sent before it filled still replays",
      async run(client) {
        const key = `before-full-${crypto.randomUUID()}`;
        const keyed = (title: string) => {
          const spec = jsonPost("/tasks", { title, completed: false });
          return { ...spec, headers: { ...spec.headers, "Idempotency-Key": key } };
        };
        const first = await client.send(keyed("Sent before the list filled"));
        checkEqual(first.status, 200, "status of the keyed POST before the list filled");
        await fill(client, maxTasks);
        const before = await client.readList();
        checkEqual(before.tasks.length, maxTasks, "length of the filled list");
        const reply = await client.send(jsonPost("/tasks", { title: "One too many", completed: false }));
        checkEqual(reply.status, 507, "status of a POST to a full list");
        checkErrorBody(reply);
        const replay = await client.send(keyed("Sent before the list filled"));
        checkEqual([replay.status, replay.text], [200, first.text], "the keyed POST again, on the full list");
        checkEqual(replay.headers.get("idempotent-replayed"), "true", "Idempotent-Replayed on the full list");
        const fresh = {
          ...keyed("A new key on a full list"),
          headers: { ...keyed("").headers, "Idempotency-Key": `${key}-new` },
        };
        checkEqual((await client.send(fresh)).status, 507, "status of a new key's POST to a full list");
        await checkUnchanged(client, before.text, before.etag);
      },
    },
    {
      name: "with a full list, POST still checks size, Content-Type, JSON and fields before the MAX_TASKS limit",
      async run(client) {
        await fill(client, maxTasks);
        await checkRefusedBeforeFull(client);
      },
    },
  ];
}

function conditionalCases(): StatefulCase[] {
  const variants: [string, (etag: string) => string][] = [
    ["the current ETag", (etag) => etag],
    ["the current ETag among others", (etag) => `"stale-1", ${etag}, "stale-2"`],
    ["the current ETag as a weak tag", (etag) => (etag.startsWith("W/") ? etag : `W/${etag}`)],
    ["*", () => "*"],
  ];
  return variants.flatMap(([what, header]) =>
    ["GET", "HEAD"].map(
      (method): StatefulCase => ({
        name: `${method} with If-None-Match holding ${what} returns 304 with no body`,
        async run(client) {
          const { etag } = await client.readList();
          check(etag !== null, "GET /tasks must send an ETag");
          const reply = await client.send({ method, path: "/tasks", headers: { "If-None-Match": header(etag) } });
          checkEqual(reply.status, 304, "status");
          checkEqual(reply.text, "", "body");
          checkEqual(reply.headers.get("etag"), etag, "ETag of the 304");
        },
      }),
    ),
  );
}

/** Checks that HEAD of `path` answers what GET answers, headers included, without a body. */
export async function checkHeadMatchesGet(client: Client, path: string): Promise<void> {
  const first = await client.send({ method: "GET", path });
  const head = await client.send({ method: "HEAD", path });
  const second = await client.send({ method: "GET", path });
  checkEqual(head.status, first.status, "status of HEAD");
  checkEqual(head.text, "", "body of HEAD");
  // Headers that differ between two GETs (dates, request ids) may differ in HEAD as well.
  for (const [name, value] of first.headers) {
    if (FRAMING_HEADERS.has(name) || second.headers.get(name) !== value) continue;
    checkEqual(head.headers.get(name), value, `${name} header of HEAD`);
  }
  const length = head.headers.get("content-length");
  const getLength = first.headers.get("content-length");
  if (length !== null && getLength !== null) checkEqual(length, getLength, "Content-Length of HEAD");
}

function checkConsecutive(tasks: readonly Task[], what: string): void {
  tasks.forEach((task, i) => {
    const previous = tasks[i - 1];
    if (previous !== undefined) checkEqual(task.id, previous.id + 1, `id after ${previous.id} in ${what}`);
  });
}

function preflight(path: string, origin: string): RequestSpec {
  return {
    method: "OPTIONS",
    path,
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "content-type",
    },
  };
}

export async function fill(client: Client, maxTasks: number): Promise<void> {
  const { tasks } = await client.readList();
  const missing = maxTasks - tasks.length;
  if (missing > MAX_FILL) fail(`MAX_TASKS ${maxTasks} is too large to fill: start the target with a smaller MAX_TASKS`);
  for (let done = 0; done < missing; done += FILL_BATCH) {
    const batch = Math.min(FILL_BATCH, missing - done);
    await Promise.all(
      Array.from({ length: batch }, (_, i) => client.create({ title: `Filler ${done + i}`, completed: false })),
    );
  }
}
