import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import type { Running } from "./processes.ts";

/** A port nobody listens on right now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()));
    });
  });
}

/** Waits until the server answers `url`, failing with its output if it exits or takes over 20 s. */
export async function waitUntilReady(url: string, server: Running): Promise<void> {
  let exited = false;
  server.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !exited) {
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await sleep(50);
    }
  }
  throw new Error(
    `The server for ${url} did not start${exited ? " (it exited)" : " within 20 s"}:\n${server.output()}`,
  );
}

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
