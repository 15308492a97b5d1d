// Reading what a subscriber receives: Server-Sent Events parsed from a response's body, and the text
// messages of a WebSocket, each with a bound on how long the test waits for them.
import { check, fail } from "./check.ts";

/** One event of an event stream, with the exact text it came as. */
export interface StreamEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
  /** The event's lines as sent, without the blank line that ends it. */
  readonly raw: string;
}

/** What a subscriber may wait for an event before the case fails: generous, since CI is slow. */
export const EVENT_TIMEOUT_MS = 30_000;

/** A queue of things that arrive one by one, read with a bound on each wait. */
class Arrivals<T> {
  readonly #items: T[] = [];
  #waiting: (() => void) | undefined;
  #ended: string | undefined;

  push(item: T): void {
    this.#items.push(item);
    this.#waiting?.();
  }

  end(reason: string): void {
    this.#ended ??= reason;
    this.#waiting?.();
  }

  /** The next item, or undefined when none arrives within `ms`; fails when the source ended. */
  async poll(ms: number): Promise<T | undefined> {
    const deadline = Date.now() + ms;
    while (this.#items.length === 0) {
      if (this.#ended !== undefined) fail(`the subscription ended: ${this.#ended}`);
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((done) => {
        const timer = setTimeout(done, left);
        this.#waiting = () => {
          clearTimeout(timer);
          done();
        };
      });
      this.#waiting = undefined;
    }
    return this.#items.shift();
  }

  /** The next `count` items, failing if any takes longer than {@link EVENT_TIMEOUT_MS}. */
  async take(count: number, what: string): Promise<T[]> {
    const taken: T[] = [];
    while (taken.length < count) {
      const item = await this.poll(EVENT_TIMEOUT_MS);
      if (item === undefined) fail(`${what}: got ${taken.length} of ${count} within ${EVENT_TIMEOUT_MS} ms`);
      taken.push(item);
    }
    return taken;
  }

  /** Whether the source ended, with why. */
  get ended(): string | undefined {
    return this.#ended;
  }
}

/** The events of an SSE answer's body, comments left out. */
export class EventReader extends Arrivals<StreamEvent> {
  readonly #reader: { read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>; cancel(): Promise<void> };
  /** Comment lines seen, such as the keep-alive. */
  readonly comments: string[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    super();
    this.#reader = body.getReader();
    void this.#read();
  }

  /** Stops reading: the server sees the subscriber leave. */
  close(): void {
    this.#reader.cancel().catch(() => {});
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await this.#reader.read();
        if (done) {
          this.end("the server ended the stream");
          return;
        }
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          this.#dispatch(block);
        }
      }
    } catch (error) {
      this.end(error instanceof Error ? error.message : String(error));
    }
  }

  #dispatch(block: string): void {
    const fields = new Map<string, string>();
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments.push(line);
        continue;
      }
      const colon = line.indexOf(":");
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      fields.set(name, fields.has(name) && name === "data" ? `${fields.get(name)}\n${value}` : value);
    }
    if (!fields.has("data")) return;
    this.push({ id: fields.get("id"), event: fields.get("event"), data: fields.get("data") ?? "", raw: block });
  }
}

/** A WebSocket to `url` (ws or wss) sending `token`, if any, as a bearer token. */
export function bearerSocket(url: string, token: string | undefined): WebSocket {
  // Node's WebSocket (undici) takes headers beside the standard arguments; browsers cannot send them.
  const init = { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } };
  return new WebSocket(url, init as unknown as string[]);
}

/** The text messages of a WebSocket, and how it closed. */
export class SocketReader extends Arrivals<string> {
  readonly socket: WebSocket;
  /** The close code, once closed. */
  closeCode: number | undefined;

  constructor(socket: WebSocket) {
    super();
    this.socket = socket;
    socket.addEventListener("message", (event) => this.push(String(event.data)));
    socket.addEventListener("close", (event) => {
      this.closeCode = event.code;
      this.end(`the socket closed with code ${event.code}`);
    });
  }

  /** Resolves once the socket is open; fails with why it could not open. */
  opened(): Promise<void> {
    return new Promise((done, failed) => {
      if (this.socket.readyState === WebSocket.OPEN) done();
      this.socket.addEventListener("open", () => done(), { once: true });
      this.socket.addEventListener("error", () => failed(new Error("the WebSocket could not open")), { once: true });
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** Waits for `reader` to end, failing if anything but its end comes first. */
export async function checkEnds(
  reader: { poll(ms: number): Promise<unknown>; ended: string | undefined },
  what: string,
) {
  let extra: unknown;
  try {
    extra = await reader.poll(EVENT_TIMEOUT_MS);
  } catch (error) {
    if (reader.ended !== undefined) return;
    throw error;
  }
  check(false, `${what} must end, got ${extra === undefined ? "nothing" : JSON.stringify(extra)}`);
}
