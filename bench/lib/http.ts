// What the harness asks of a server beside the measured load: its list, checked, and the POSTs and
// edits that grow and change it.
import autocannon from "autocannon";

/** A GET answer as the harness needs it: the body, and the headers a ceiling repeats. */
export interface ListAnswer {
  readonly body: Uint8Array;
  /** Undefined for a server without ETags (the plain Hono peer). */
  readonly etag: string | undefined;
  readonly headers: Record<string, string>;
}

/** Headers each server writes for itself, so a ceiling must not copy them. */
const OWN_HEADERS = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);

/**
 * GETs the list and checks that the answer is a 200 JSON array of `expectedTasks` tasks, with an
 * ETag unless `withEtag` is false.
 */
export async function getList(url: string, expectedTasks: number, withEtag = true): Promise<ListAnswer> {
  const response = await fetch(url);
  const body = new Uint8Array(await response.arrayBuffer());
  const etag = response.headers.get("etag") ?? undefined;
  const tasks: unknown = JSON.parse(new TextDecoder().decode(body));
  if (
    response.status !== 200 ||
    (withEtag && etag === undefined) ||
    !Array.isArray(tasks) ||
    tasks.length !== expectedTasks
  ) {
    throw new Error(
      `GET ${url} should answer 200${withEtag ? " with an ETag" : ""} and ${expectedTasks} tasks, got ${response.status}`,
    );
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (!OWN_HEADERS.has(name)) headers[name] = value;
  return { body, etag, headers };
}

/**
 * POSTs `body` exactly `count` times over `connections` kept-alive connections, and checks that
 * every answer is 200. This is how the list grows: through the API, as clients grow it.
 */
export async function postMany(url: string, body: string, count: number, connections = 32): Promise<void> {
  if (count <= 0) return;
  const result = await autocannon({
    url,
    method: "POST",
    body,
    headers: { "Content-Type": "application/json" },
    connections: Math.min(connections, count),
    amount: count,
  });
  if (result["2xx"] !== count) {
    throw new Error(
      `Growing the list at ${url} took ${result["2xx"]} of ${count} POSTs (${result.non2xx} not 2xx, ${result.errors} errors): check MAX_TASKS and the server log`,
    );
  }
}

/**
 * Renames `count` tasks of a list of ids 1 to `tasks` (none deleted), spread evenly over it, over
 * a few kept-alive connections, and checks that every answer is 200.
 */
export async function editMany(url: string, tasks: number, count: number, connections = 8): Promise<void> {
  let next = 0;
  const edit = async () => {
    for (let n = next++; n < count; n = next++) {
      const id = 1 + Math.floor((n * tasks) / count);
      const response = await fetch(`${url}/${id}`, {
        method: "PATCH",
        headers: { "Content-Type": "application/merge-patch+json" },
        body: JSON.stringify({ title: `Edited by the bench, ${n}` }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`PATCH ${url}/${id} answered ${response.status}, not 200`);
    }
  };
  await Promise.all(Array.from({ length: connections }, edit));
}

/** The id of the last task in the list at `url`: the list's length, as ids count from 1 and none is deleted. */
export async function lastTaskId(url: string): Promise<number> {
  const tasks = (await (await fetch(url)).json()) as { id: number }[];
  return tasks.at(-1)?.id ?? 0;
}
