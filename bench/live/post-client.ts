// POSTs (or PATCHes, or GETs) one task at a time over a kept-alive raw socket, noting when each answer
// has fully arrived on the same clock as the subscriber clients: an HTTP library's own work would come after it.
import { connect, type Socket } from "node:net";
import { now } from "./protocol.ts";

/** A POST's or PATCH's answer: the task's id, when the request was sent and when the answer's last byte came. */
export interface PostAnswer {
  readonly id: number;
  readonly sentAt: number;
  readonly answeredAt: number;
}

/** One kept-alive connection that POSTs tasks to a server's /tasks, one at a time. */
export class PostClient {
  readonly #socket: Socket;
  readonly #port: number;
  readonly #request: string;
  #received = Buffer.alloc(0);
  #waiting: ((at: number) => void) | undefined;
  #closed = false;

  private constructor(socket: Socket, port: number, body: string) {
    this.#socket = socket;
    this.#port = port;
    this.#request =
      `POST /tasks HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      const at = now();
      this.#received = Buffer.concat([this.#received, chunk]);
      this.#waiting?.(at);
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      this.#closed = true;
      this.#waiting?.(now());
    });
  }

  /** Connects to the server on `port`; every POST sends `body`. */
  static connect(port: number, body: string): Promise<PostClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.off("error", reject);
        resolve(new PostClient(socket, port, body));
      });
      socket.once("error", reject);
    });
  }

  /** POSTs the task and resolves with its answer, which must be a 200 with a Content-Length. */
  post(): Promise<PostAnswer> {
    return this.#send(this.#request);
  }

  /** Edits task `id` with the merge patch `body`, and resolves with its answer, as {@link post} does. */
  patch(id: number, body: string): Promise<PostAnswer> {
    return this.#send(
      `PATCH /tasks/${id} HTTP/1.1\r\nHost: 127.0.0.1:${this.#port}\r\nContent-Type: application/merge-patch+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }

  /** Reads task `id`, and resolves with its answer, as {@link post} does. */
  get(id: number): Promise<PostAnswer> {
    return this.#send(`GET /tasks/${id} HTTP/1.1\r\nHost: 127.0.0.1:${this.#port}\r\n\r\n`);
  }

  async #send(request: string): Promise<PostAnswer> {
    const sentAt = now();
    this.#socket.write(request);
    for (;;) {
      const at = await new Promise<number>((wake) => {
        this.#waiting = wake;
      });
      const answer = this.#answer(at);
      if (answer !== undefined) return { ...answer, sentAt };
      if (this.#closed) throw new Error("The server closed the connection of the POSTs and PATCHes");
    }
  }

  close(): void {
    this.#socket.destroy();
  }

  /** The answer once all of it has come, taking it off the buffer. */
  #answer(at: number): Omit<PostAnswer, "sentAt"> | undefined {
    const head = this.#received.indexOf("\r\n\r\n");
    if (head < 0) return undefined;
    const text = this.#received.subarray(0, head).toString("latin1");
    const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
    if (length === undefined) throw new Error(`A POST was answered without a Content-Length: ${text}`);
    const end = head + 4 + Number(length);
    if (this.#received.byteLength < end) return undefined;
    const body = this.#received.subarray(head + 4, end).toString("utf8");
    this.#received = this.#received.subarray(end);
    if (!text.startsWith("HTTP/1.1 200"))
      throw new Error(`A POST, PATCH or GET was answered ${text.split("\r\n")[0]}: ${body}`);
    this.#waiting = undefined;
    return { id: (JSON.parse(body) as { id: number }).id, answeredAt: at };
  }
}
