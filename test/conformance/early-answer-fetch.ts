// fetch for the suites on real servers, reading an answer that comes before the whole request body.
import { RawConnection } from "../load/raw-http.ts";

/** Each request gets this long before it counts as hung. */
const REQUEST_TIMEOUT_MS = 30_000;
const WRITE_FAILURES = new Set(["EPIPE", "ECONNRESET"]);

/**
 * fetch with a bound on each request. A server that refuses a body it has not read (413 at its
 * declared length, 401 without a token) may answer and close while the body is still on its way:
 * bare `workerd serve` does, where Cloudflare's front line and wrangler dev's proxy read the rest
 * first. fetch then fails on its write. This sends the request again as curl sends a large body:
 * its head with `Expect: 100-continue`, and the body only once the server asks for it. A body sent
 * regardless would race the server's close again: a socket closed with bytes unread is reset, and
 * the reset can take the answer with it.
 */
export async function fetchReadingEarlyAnswers(request: Request): Promise<Response> {
  // A copy of the body, read only if it has to be sent again.
  const copy = request.body === null ? undefined : request.clone();
  try {
    return await fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    const code = error instanceof Error && error.cause instanceof Error ? Reflect.get(error.cause, "code") : undefined;
    if (copy === undefined || !WRITE_FAILURES.has(String(code))) throw error;
    return rawExchange(request, new Uint8Array(await copy.arrayBuffer()));
  }
}

async function rawExchange(request: Request, body: Uint8Array): Promise<Response> {
  const url = new URL(request.url);
  const connection = new RawConnection(url.origin);
  try {
    await connection.connected;
    const headers = [...request.headers].filter(([name]) => name !== "content-length" && name !== "transfer-encoding");
    const head = [
      `${request.method} ${url.pathname}${url.search} HTTP/1.1`,
      `Host: ${url.host}`,
      `Content-Length: ${body.byteLength}`,
      "Expect: 100-continue",
      "Connection: close",
      ...headers.map(([name, value]) => `${name}: ${value}`),
    ];
    await connection.write(`${head.join("\r\n")}\r\n\r\n`);
    let answer = await connection.response();
    if (answer?.status === 100) {
      await connection.write(Buffer.from(body).toString("latin1"));
      answer = (await connection.responsesUntilClosed()).find((response) => response.status !== 100);
    }
    if (answer === undefined) throw new Error(`${request.method} ${url.pathname}: the server closed without an answer`);
    const bytes = Buffer.from(answer.body, "latin1");
    return new Response(answer.status === 204 || answer.status === 304 ? null : bytes, {
      status: answer.status,
      headers: [...answer.headers],
    });
  } finally {
    connection.destroy();
  }
}
