// A POST's body: read with its size counted as it arrives, its Content-Type checked, and parsed
// as JSON, each failure a response with the contract's status and message.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { apiError } from "../errors.ts";
import { BODY_CUT_OFF, bodyStalled, bodyTooLarge, EMPTY_BODY, NOT_JSON, NOT_JSON_TYPE, NOT_UTF8 } from "../messages.ts";
import { type AppEnv, requestHeader } from "./request-context.ts";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const JSON_MEDIA_TYPE = /^application\/(?:json|[^\s/;]+\+json)$/;

/**
 * Reads a request body, counting bytes as they arrive: a body over `limit` bytes is refused with
 * 413 whatever its `Content-Length` says, and is not read further. A body the client stops
 * sending midway is refused with 400, and one that goes `silenceMs` (the config's
 * BODY_SILENCE_MS) without a byte with 408; either way what was read is let go.
 */
export function readBody(c: Context<AppEnv>, limit: number, silenceMs: number): Promise<Uint8Array> {
  const declared = requestHeader(c, "content-length");
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) <= WHOLE_READ_BYTES) {
    return readWhole(c.req.raw, limit, silenceMs).catch(cutOff);
  }
  return readCounted(c.req.raw, limit, silenceMs).catch(cutOff);
}

/**
 * A declared body this small is read whole, the runtime's fastest way: on Node it skips the Web
 * stream @hono/node-server builds once `body` is touched, which pins about 1 KiB a request until a
 * late garbage collection. Its whole time is bounded by the silence allowed instead of its
 * silences, and what a stalled one holds is at most this much.
 */
const WHOLE_READ_BYTES = 64 * 1024;

function readWhole(request: Request, limit: number, silenceMs: number): Promise<Uint8Array> {
  let fail: (error: unknown) => void = () => {};
  const deadline = new Promise<never>((_, reject) => {
    fail = reject;
  });
  const timer = setTimeout(() => fail(stalled(silenceMs)), silenceMs);
  const whole = request.arrayBuffer().then((buffer) => {
    // Counted all the same: an in-process Request may lie about its length.
    if (buffer.byteLength > limit) throw tooLarge(limit);
    return new Uint8Array(buffer);
  });
  return Promise.race([whole, deadline]).finally(() => clearTimeout(timer));
}

/** Every runtime fails a read only when the client's connection ends mid-body: its mistake, not a 500. */
function cutOff(error: unknown): never {
  if (error instanceof HTTPException) throw error;
  throw apiError(400, BODY_CUT_OFF);
}

async function readCounted(request: Request, limit: number, silenceMs: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // One timer per body, not per chunk: when it fires it looks at when the last chunk came.
  let heardAt = Date.now();
  let silent = false;
  // A timer that finds the body silent looks once more a turn later: a server whose own event loop
  // stalled has chunks waiting to be read, and the client that sent them is not the silent one.
  let confirming = false;
  const watch = () => {
    const quiet = Date.now() - heardAt;
    if (quiet < silenceMs) {
      confirming = false;
      timer = setTimeout(watch, silenceMs - quiet);
      return;
    }
    if (!confirming) {
      confirming = true;
      timer = setTimeout(watch, 0);
      return;
    }
    silent = true;
    // Ends the pending read, and has the runtime let go of what it buffered for this body.
    reader.cancel().catch(() => {});
  };
  let timer = setTimeout(watch, silenceMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (silent) throw stalled(silenceMs);
      if (done) break;
      heardAt = Date.now();
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => {});
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    // A runtime may fail the read that the cancel ended rather than end it.
    throw silent ? stalled(silenceMs) : error;
  } finally {
    clearTimeout(timer);
  }
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Refuses a `Content-Type` that is present and not JSON; a missing one is read as JSON. */
export function requireJsonContentType(contentType: string | undefined): void {
  if (contentType === undefined || contentType === "application/json") return;
  const mediaType = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw apiError(415, NOT_JSON_TYPE);
  }
}

/**
 * Parses a JSON body, telling an empty body, bytes that are not UTF-8 and malformed JSON apart;
 * `empty` is the message for an empty body, which says what the request's body should hold.
 */
export function parseJson(body: Uint8Array, empty = EMPTY_BODY): unknown {
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    throw apiError(400, NOT_UTF8);
  }
  try {
    return JSON.parse(text);
  } catch {
    // Told apart only once parsing failed: an empty body is no JSON either.
    throw apiError(400, text.trim() === "" ? empty : NOT_JSON);
  }
}

function stalled(silenceMs: number) {
  return apiError(408, bodyStalled(silenceMs / 1000));
}

function tooLarge(limit: number) {
  return apiError(413, bodyTooLarge(limit));
}
