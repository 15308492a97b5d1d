// A subscriber on a bare socket, which can stop reading as a stalled client does, and what the
// tests of stalled subscribers share: big titles, a POST, and whether the one slot is free.
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { requestHead } from "./http.ts";

/** Titles of the tasks that pile up behind a subscriber that does not read: 512 KiB each. */
export const BIG_TITLE = "x".repeat(512 * 1024);
/** At most this many big tasks (14 MiB, under the default MAX_LIST_BYTES): far past what socket buffers hold. */
export const MAX_BIG_TASKS = 28;

export interface Task {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/** A subscriber on a bare socket, so that it can stop reading as a stalled client does. */
export class RawSubscriber {
  readonly socket: Socket;
  #text = "";
  #closed = false;
  readonly closed: Promise<void>;

  constructor(baseUrl: string, path: string) {
    const { hostname, port } = new URL(baseUrl);
    this.socket = connect(Number(port), hostname);
    this.socket.on("data", (chunk: Buffer) => {
      this.#text += chunk.toString("utf8");
    });
    this.socket.on("error", () => {});
    this.closed = new Promise((done) =>
      this.socket.once("close", () => {
        this.#closed = true;
        done();
      }),
    );
    this.socket.write(requestHead("GET", path, { Accept: "text/event-stream" }));
  }

  /** Everything received so far, as it came: the response's head, then the chunked body. */
  get received(): string {
    return this.#text;
  }

  /** Whether the connection has closed. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Resolves once the response's head and the stream's opening comment have arrived. */
  async opened(): Promise<void> {
    while (!this.#text.includes(": following the list")) {
      if (this.#closed) throw new Error(`the subscription ended before it opened: ${this.#text.slice(0, 300)}`);
      await sleep(10);
    }
  }

  /** The ids of the whole events received so far, in order. */
  ids(): number[] {
    return [...this.#text.matchAll(/^id: (\d+)\nevent: task\ndata: .*\n\n/gm)].map((match) => Number(match[1]));
  }
}

/** POSTs one task and expects it added. */
export async function post(baseUrl: string, title: string): Promise<Task> {
  const res = await fetch(`${baseUrl}/tasks`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ title, completed: false }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Task;
}

/** Whether a new subscriber gets a slot now: the only one is taken while a subscriber holds it. */
export async function placeFree(baseUrl: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/tasks/events?after=999999999`);
  await res.body?.cancel();
  return res.status === 200;
}
