// The contract's "Exactly-once creation": a POST with an Idempotency-Key adds its task once, and
// the same request again gets the same task.
import { check, checkEqual, type Task } from "../support/check.ts";
import { jsonPost, type Reply } from "./client.ts";
import { checkErrorBody, checkUnchanged } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";

/** A key no other request of the suite sends. */
function newKey(): string {
  return `conformance-${crypto.randomUUID()}`;
}

/** A POST of `task` with `key` as its Idempotency-Key, and `token` as the bearer token when given. */
function keyedPost(task: unknown, key: string, token?: string) {
  const headers: Record<string, string> = { "Idempotency-Key": key };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const spec = jsonPost("/tasks", task);
  return { ...spec, headers: { ...spec.headers, ...headers } };
}

/** The task a 200 answer carries. */
function created(reply: Reply, what: string): Task {
  checkEqual(reply.status, 200, `status of ${what} (body ${reply.text})`);
  return JSON.parse(reply.text) as Task;
}

/** The Idempotency-Key cases for a target configured as `options` says. */
export function idempotencyCases(options: {
  maxIdempotencyKeys?: number;
  tokens?: { read: string; write: string };
  otherWriteToken?: string;
  worker?: boolean;
  inWorkerd?: boolean;
}): StatefulCase[] {
  // A key past visible ASCII: workerd's fetch warns of any byte past 0x7F in a header, so a Worker,
  // or a suite inside workerd, sends DEL instead of é, which every other runtime is sent.
  const outsideAscii = options.worker === true || options.inWorkerd === true ? "caf\u007f" : "caf\u00e9";
  return [
    {
      name: "a POST with an Idempotency-Key sent again returns 200 with the same task and Idempotent-Replayed: true, and adds nothing",
      core: true,
      async run(client) {
        const key = newKey();
        const task = { title: "Once only", completed: false };
        const first = await client.send(keyedPost(task, key));
        const added = created(first, "the first POST with the key");
        check(first.headers.get("idempotent-replayed") === null, "the first answer is not a replay");
        const after = await client.readList();
        checkEqual(after.tasks.at(-1), added, "the task the first POST added, last in the list");
        for (const path of ["/tasks", "/index.php"]) {
          const again = await client.send({ ...keyedPost(task, key), path });
          checkEqual(again.text, first.text, `the response to the same POST again on ${path}`);
          checkEqual(again.headers.get("idempotent-replayed"), "true", "Idempotent-Replayed of the replay");
        }
        await checkUnchanged(client, after.text, after.etag);
      },
    },
    {
      name: "the same key with another title or completed returns 422 and adds nothing",
      async run(client) {
        const key = newKey();
        created(await client.send(keyedPost({ title: "The first", completed: false }, key)), "the first POST");
        const before = await client.readList();
        for (const other of [
          { title: "Another", completed: false },
          { title: "The first", completed: true },
        ]) {
          const reply = await client.send(keyedPost(other, key));
          checkEqual(reply.status, 422, `status of the key sent with ${JSON.stringify(other)}`);
          checkErrorBody(reply, { naming: "Idempotency-Key" });
        }
        await checkUnchanged(client, before.text, before.etag);
      },
    },
    {
      name: "a malformed Idempotency-Key returns 400 naming the header, before the body is looked at, and adds nothing",
      async run(client) {
        const before = await client.readList();
        for (const key of ["", "x".repeat(256), "two words", outsideAscii]) {
          for (const body of [{ title: "Never added", completed: false }, { title: "No status" }]) {
            const reply = await client.send(keyedPost(body, key));
            checkEqual(reply.status, 400, `status of Idempotency-Key ${JSON.stringify(key.slice(0, 20))}`);
            checkErrorBody(reply, { naming: "Idempotency-Key" });
          }
        }
        const longest = await client.send(keyedPost({ title: "A key of 255", completed: false }, "k".repeat(255)));
        created(longest, "a POST with a key of 255 characters");
        const after = await client.readList();
        checkEqual(after.tasks.slice(0, -1), before.tasks, "the list but for the task the good key added");
      },
    },
    {
      name: "a POST refused for its body remembers nothing: the same key with a good body adds the task",
      async run(client) {
        const key = newKey();
        const refused = await client.send(keyedPost({ title: "No status" }, key));
        checkEqual(refused.status, 400, "status of the refused POST");
        const task = created(await client.send(keyedPost({ title: "Now whole", completed: true }, key)), "the retry");
        checkEqual(
          { title: task.title, completed: task.completed },
          { title: "Now whole", completed: true },
          "the task",
        );
      },
    },
    {
      name: "POSTs sent at once with one key add one task; the others get it again, or 409",
      core: true,
      async run(client) {
        const key = newKey();
        const before = await client.readList();
        const replies = await Promise.all(
          Array.from({ length: 6 }, () => client.send(keyedPost({ title: "Sent at once", completed: false }, key))),
        );
        const answered = replies.filter((reply) => reply.status === 200);
        for (const reply of replies) check([200, 409].includes(reply.status), `status ${reply.status}: 200 or 409`);
        check(answered.length > 0, "one of the POSTs must add the task");
        checkEqual(new Set(answered.map((reply) => reply.text)).size, 1, "distinct tasks in the 200 answers");
        checkEqual(
          answered.filter((reply) => reply.headers.get("idempotent-replayed") === null).length,
          1,
          "200 answers that are not replays",
        );
        const after = await client.readList();
        checkEqual(after.tasks.length, before.tasks.length + 1, "tasks added by the POSTs sent at once");
      },
    },
    ...(options.otherWriteToken === undefined || options.tokens === undefined
      ? []
      : [tokenKeysCase(options.tokens.write, options.otherWriteToken)]),
    ...(options.maxIdempotencyKeys === undefined ? [] : [forgottenKeysCase(options.maxIdempotencyKeys)]),
    ...(options.otherWriteToken === undefined ||
    options.tokens === undefined ||
    options.maxIdempotencyKeys === undefined
      ? []
      : [tokenFloodCase(options.tokens.write, options.otherWriteToken, options.maxIdempotencyKeys)]),
  ];
}

/** MAX_IDEMPOTENCY_KEYS bounds each token's keys: one token's flood of keys never pushes out another's. */
function tokenFloodCase(token: string, otherToken: string, max: number): StatefulCase {
  return {
    name: `a write token that sends more than MAX_IDEMPOTENCY_KEYS (${max}) keys forgets only its own: another token's key still replays`,
    async run(client) {
      const task = { title: "Kept through another token's flood", completed: false };
      const key = newKey();
      const mine = created(await client.send(keyedPost(task, key, token)), "the first token's POST");
      const flood = Array.from({ length: max + 1 }, newKey);
      for (const [i, other] of flood.entries()) {
        created(
          await client.send(keyedPost({ title: `Flood ${i}`, completed: false }, other, otherToken)),
          `flood ${i}`,
        );
      }
      const again = await client.send(keyedPost(task, key, token));
      checkEqual(again.headers.get("idempotent-replayed"), "true", "the first token's POST again is a replay");
      checkEqual(created(again, "the first token's POST again"), mine, "the first token's replayed task");
      const oldest = await client.send(keyedPost({ title: "Flood 0", completed: false }, flood[0] ?? "", otherToken));
      check(oldest.headers.get("idempotent-replayed") === null, "the flooding token's oldest key is forgotten");
    },
  };
}

/** With WRITE_TOKENS each token has keys of its own. */
function tokenKeysCase(token: string, otherToken: string): StatefulCase {
  return {
    name: "each write token has keys of its own: one key sent with two tokens adds two tasks",
    async run(client) {
      const key = newKey();
      const task = { title: "Mine and yours", completed: false };
      const mine = created(await client.send(keyedPost(task, key, token)), "the POST with the first token");
      const yours = created(await client.send(keyedPost(task, key, otherToken)), "the POST with the second token");
      checkEqual(yours.id, mine.id + 1, "the second token's task follows the first's");
      const again = await client.send(keyedPost(task, key, otherToken));
      checkEqual(created(again, "the second token's POST again"), yours, "the second token's replay");
    },
  };
}

/** MAX_IDEMPOTENCY_KEYS: past it the oldest key is forgotten, so its request adds a task again. */
function forgottenKeysCase(max: number): StatefulCase {
  return {
    name: `past MAX_IDEMPOTENCY_KEYS (${max}) the oldest key is forgotten first, and the newest still replays`,
    async run(client) {
      const keys = Array.from({ length: max + 1 }, newKey);
      const tasks: Task[] = [];
      for (const [i, key] of keys.entries()) {
        tasks.push(created(await client.send(keyedPost({ title: `Key ${i}`, completed: false }, key)), `POST ${i}`));
      }
      const newest = await client.send(keyedPost({ title: `Key ${max}`, completed: false }, keys[max] ?? ""));
      checkEqual(newest.headers.get("idempotent-replayed"), "true", "the newest key's POST again is a replay");
      const oldest = await client.send(keyedPost({ title: "Key 0", completed: false }, keys[0] ?? ""));
      check(oldest.headers.get("idempotent-replayed") === null, "the oldest key is forgotten: its POST is new");
      checkEqual(created(oldest, "the oldest key's POST again").id, (tasks.at(-1)?.id ?? 0) + 1, "its new task's id");
    },
  };
}
