import { check, checkEqual, fail, type Task } from "../support/check.ts";
import { type Client, jsonPost, type Reply } from "./client.ts";
import { checkErrorBody, checkRefusedBeforeFull, checkUnchanged } from "./expect.ts";
import type { StatefulCase } from "./stateful.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./table.ts";

const encoder = new TextEncoder();
/** How many POSTs filling the list may take before the suite gives up, so a huge limit cannot stall it. */
const MAX_FILL_POSTS = 5_000;
/** Titles begin with characters JSON escapes or UTF-8 takes several bytes for, so a store that counts characters overshoots. */
const TITLE_PREFIX = 'Filler "quoted" \\ Grüße 🚀\n\t';
const PREFIX_BYTES = jsonBytes(TITLE_PREFIX) - 2;
/** Bytes of a POST body beside its title: `{"title":"","completed":false}`. */
const BODY_OVERHEAD = jsonBytes({ title: "", completed: false });
const RACERS = 8;
const RACERS_THAT_FIT = 3;
/** Longer than the smallest filler, so the room a race leaves can still be filled exactly. */
const RACE_TITLE = `Racing for the last bytes ${"r".repeat(200)}`;

/**
 * The MAX_LIST_BYTES cases; they fill the list to its byte limit with large titles, so they run
 * last. Each task's size is counted exactly as the list's JSON shows it.
 */
export function byteLimitCases(maxListBytes: number): StatefulCase[] {
  return [
    {
      name: `concurrent POSTs racing for the last bytes under MAX_LIST_BYTES: exactly the ${RACERS_THAT_FIT} that fit return 200, the other ${RACERS - RACERS_THAT_FIT} return 507`,
      async run(client) {
        // Room for the racers and a last filler of at most a few KiB, then the filler that leaves
        // room for exactly RACERS_THAT_FIT of them: whichever racer gets an id, its size is that id's.
        const racerUpperBound = taskBytes(10 ** 12, RACE_TITLE) + 1;
        const filled = await fillTo(client, maxListBytes - racerUpperBound * (RACERS_THAT_FIT + 1) - 1_000);
        const firstRacerId = filled.lastId + 2;
        const size = (i: number) => taskBytes(firstRacerId + i, RACE_TITLE) + 1;
        const room =
          [...Array(RACERS_THAT_FIT).keys()].reduce((sum, i) => sum + size(i), 0) + size(RACERS_THAT_FIT) - 1;
        await fillTo(client, maxListBytes - room, filled);
        const before = await client.readList();
        checkEqual(before.tasks.at(-1)?.id, firstRacerId - 1, "id of the last filler");

        const replies = await Promise.all(
          Array.from({ length: RACERS }, () =>
            client.send(jsonPost("/tasks", { title: RACE_TITLE, completed: false })),
          ),
        );
        const accepted = replies.filter((reply) => reply.status === 200);
        checkEqual(
          replies.map((reply) => reply.status).sort(),
          [...Array(RACERS_THAT_FIT).fill(200), ...Array(RACERS - RACERS_THAT_FIT).fill(507)],
          "statuses of the racing POSTs",
        );
        for (const reply of replies.filter((r) => r.status === 507)) checkFullByBytes(reply);
        const created = accepted.map((reply) => JSON.parse(reply.text) as Task).sort((a, b) => a.id - b.id);
        checkEqual(
          created.map((task) => task.id),
          [...Array(RACERS_THAT_FIT).keys()].map((i) => firstRacerId + i),
          "ids of the accepted racers",
        );
        const after = await client.readList();
        // Compared as text: the list is MAX_LIST_BYTES long, and the created tasks' JSON is their text.
        const expected = `${before.text.slice(0, -1)},${created.map((task) => JSON.stringify(task)).join(",")}]`;
        checkEqual(after.text, expected, "the list after the race");
        check(after.byteLength <= maxListBytes, `the list takes ${after.byteLength} bytes, past ${maxListBytes}`);
      },
    },
    {
      name: "a list filled to exactly MAX_LIST_BYTES with large titles returns 507 to the next POST, naming the byte limit, and adds nothing",
      async run(client) {
        await fillTo(client, maxListBytes);
        const before = await client.readList();
        checkEqual(before.byteLength, maxListBytes, "bytes of the filled list");
        const reply = await client.send(jsonPost("/tasks", { title: "", completed: false }));
        checkEqual(reply.status, 507, "status of a POST to a list at its byte limit");
        checkFullByBytes(reply);
        await checkUnchanged(client, before.text, before.etag);
      },
    },
    {
      name: "a list at MAX_LIST_BYTES still answers GET with every task, HEAD with its length, and 304 to its ETag",
      async run(client) {
        await fillTo(client, maxListBytes);
        const first = await client.readList();
        const second = await client.readList();
        checkEqual(second.text, first.text, "the list read twice");
        const ids = first.tasks.map((task) => task.id);
        check(
          ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0)),
          "the full list's ids must grow from first to last",
        );
        const head = await client.send({ method: "HEAD", path: "/tasks" });
        checkEqual(head.status, 200, "status of HEAD");
        checkEqual(head.text, "", "body of HEAD");
        checkEqual(head.headers.get("etag"), first.etag, "ETag of HEAD");
        const length = head.headers.get("content-length");
        if (length !== null) checkEqual(Number(length), maxListBytes, "Content-Length of HEAD");
        check(first.etag !== null, "GET /tasks must send an ETag");
        for (const method of ["GET", "HEAD"]) {
          const reply = await client.send({ method, path: "/tasks", headers: { "If-None-Match": first.etag } });
          checkEqual(reply.status, 304, `status of a conditional ${method} of the full list`);
          checkEqual(reply.text, "", "body of the 304");
        }
      },
    },
    {
      name: "with a list at MAX_LIST_BYTES, POST still checks size, Content-Type, JSON and fields before the byte limit",
      async run(client) {
        await fillTo(client, maxListBytes);
        await checkRefusedBeforeFull(client);
      },
    },
  ];
}

/** How far a list was filled: its bytes, its last id and its length, as {@link fillTo} counted them. */
export interface FilledList {
  readonly bytes: number;
  readonly lastId: number;
  readonly count: number;
}

/**
 * Appends tasks with large titles until the list's JSON takes exactly `target` bytes: each as large
 * as MAX_BODY_BYTES allows, the last one sized to land on the target. `from` is where an earlier
 * fill left the list, so that a full list is not read again to learn it.
 */
export async function fillTo(client: Client, target: number, from?: FilledList): Promise<FilledList> {
  const start = from ?? (await listSize(client));
  let { bytes, lastId, count } = start;
  const maxTitleBytes = (client.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) - BODY_OVERHEAD - PREFIX_BYTES - 16;
  for (let posts = 0; bytes < target; posts++) {
    if (posts >= MAX_FILL_POSTS) fail(`Filling ${target} bytes takes more than ${MAX_FILL_POSTS} POSTs`);
    const fixed = taskBytes(lastId + 1, "") + (count > 0 ? 1 : 0);
    const room = target - bytes;
    if (room < fixed + PREFIX_BYTES) fail(`Cannot fill the list to exactly ${target} bytes: ${room} bytes are left`);
    let titleBytes = room - fixed;
    if (titleBytes > maxTitleBytes) {
      // Leaves the next task room for at least its fixed part and the prefix.
      titleBytes = Math.min(maxTitleBytes, room - fixed - (taskBytes(lastId + 2, "") + 1 + PREFIX_BYTES));
    }
    const created = await client.create({ title: titleOfBytes(titleBytes), completed: false });
    // The first filler may come after ids given to tasks since deleted: its JSON counts its own id.
    if (posts > 0 || from !== undefined) checkEqual(created.id, lastId + 1, "id of a filler task");
    bytes += taskBytes(created.id, "") + (count > 0 ? 1 : 0) + titleBytes;
    lastId = created.id;
    count += 1;
  }
  checkEqual(bytes, target, "bytes of the list after filling it");
  return { bytes, lastId, count };
}

async function listSize(client: Client): Promise<FilledList> {
  const list = await client.readList();
  return { bytes: list.byteLength, lastId: list.tasks.at(-1)?.id ?? 0, count: list.tasks.length };
}

/** A title whose JSON string literal, quotes left out, takes exactly `bytes` bytes. */
function titleOfBytes(bytes: number): string {
  const rest = bytes - PREFIX_BYTES;
  if (rest < 0) fail(`A filler title cannot be as small as ${bytes} bytes`);
  return `${TITLE_PREFIX}${"é".repeat(Math.floor(rest / 2))}${rest % 2 === 1 ? "x" : ""}`;
}

function taskBytes(id: number, title: string): number {
  return jsonBytes({ id, title, completed: false });
}

function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).byteLength;
}

/** Checks a 507 that names the byte limit. */
export function checkFullByBytes(reply: Reply): void {
  checkErrorBody(reply);
  const { message } = JSON.parse(reply.text) as { message: string };
  check(/\bbytes?\b/i.test(message), `the 507 message must name the byte limit, got ${JSON.stringify(message)}`);
}
