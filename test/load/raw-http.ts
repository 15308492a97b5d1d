import { connect, type Socket } from "node:net";

/** A response read off a raw socket. */
export interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/**
 * An HTTP/1.1 client on a bare TCP socket, for what fetch refuses to send: bodies cut short,
 * lying lengths, headers written a byte at a time. Bytes are read as latin1, one character each.
 */
export class RawConnection {
  readonly #socket: Socket;
  #received = "";
  #closed = false;
  readonly #waiters = new Set<() => void>();
  readonly connected: Promise<void>;

  constructor(baseUrl: string) {
    const { hostname, port } = new URL(baseUrl);
    this.#socket = connect(Number(port), hostname);
    this.connected = new Promise((done, fail) => {
      this.#socket.once("connect", () => done());
      this.#socket.once("error", fail);
    });
    this.#socket.on("data", (chunk: Buffer) => {
      this.#received += chunk.toString("latin1");
      this.#wake();
    });
    // A server that refuses a request may close or reset the connection: that ends the reading.
    this.#socket.on("error", () => {});
    this.#socket.on("close", () => {
      this.#closed = true;
      this.#wake();
    });
  }

  /** Writes text as bytes; resolves once the socket has taken it, or at once if the server has closed it. */
  write(text: string): Promise<void> {
    if (this.#closed || this.#socket.destroyed) return Promise.resolve();
    return new Promise((done) => {
      this.#socket.write(Buffer.from(text, "latin1"), () => done());
    });
  }

  /** Whether the server has closed the connection (or it was dropped). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Everything received so far. */
  get received(): string {
    return this.#received;
  }

  /** Whether the connection has closed, from either end. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Resolves with the first complete response, or undefined if the server closed without one. */
  async response(): Promise<RawResponse | undefined> {
    for (;;) {
      const parsed = parseResponses(this.#received)[0];
      if (parsed !== undefined) return parsed;
      if (this.#closed) return undefined;
      await new Promise<void>((wake) => this.#waiters.add(wake));
    }
  }

  /** Resolves with every response received by the time the server closes the connection. */
  async responsesUntilClosed(): Promise<RawResponse[]> {
    while (!this.#closed) await new Promise<void>((wake) => this.#waiters.add(wake));
    return parseResponses(this.#received);
  }

  /** Drops the connection at once, as a client that goes away does. */
  destroy(): void {
    this.#socket.destroy();
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }
}

/** The complete responses at the start of `text`, in order; a response still arriving is left out. */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd < 0) return responses;
    const [statusLine = "", ...lines] = rest.slice(0, headEnd).split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const afterHead = rest.slice(headEnd + 4);
    const length = headers.get("content-length");
    let body: string;
    if (headers.get("transfer-encoding")?.toLowerCase() === "chunked") {
      const decoded = decodeChunked(afterHead);
      if (decoded === undefined) return responses;
      body = decoded.body;
      rest = afterHead.slice(decoded.consumed);
    } else if (length !== undefined) {
      if (afterHead.length < Number(length)) return responses;
      body = afterHead.slice(0, Number(length));
      rest = afterHead.slice(Number(length));
    } else {
      // Without a length, a response with a body runs to the end of the connection; the callers'
      // responses without one (204, 304, 405, the runtimes' own 400s) have nothing after the head.
      body = "";
      rest = afterHead;
    }
    responses.push({ status, headers, body });
  }
}

function decodeChunked(text: string): { body: string; consumed: number } | undefined {
  let body = "";
  let offset = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", offset);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(text.slice(offset, lineEnd), 16);
    const dataStart = lineEnd + 2;
    if (size === 0) {
      const end = text.indexOf("\r\n", dataStart);
      return end < 0 ? undefined : { body, consumed: end + 2 };
    }
    if (text.length < dataStart + size + 2) return undefined;
    body += text.slice(dataStart, dataStart + size);
    offset = dataStart + size + 2;
  }
}
