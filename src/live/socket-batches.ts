// How a batch of a backlog goes onto a WebSocket, one message per event: as whole frames in one
// write where the runtime's adapter can write to the connection, else as texts, corked into one
// write where the runtime can, else sent one by one.
import type { WSContext } from "hono/ws";
import type { EventBatch, EventFormat } from "../list/list-version.ts";
import { SOCKET_FRAME_FORMAT, SOCKET_TEXT_FORMAT } from "./frames.ts";

/**
 * Where a runtime's adapter puts, on the socket it hands the app as `raw`, a function that writes
 * whole WebSocket frames to the connection in one write, in order with the socket's own messages.
 */
export const WRITE_FRAMES = Symbol("write WebSocket frames");

/** A socket whose adapter writes frames for it. */
export interface FrameWriting {
  [WRITE_FRAMES]?: (frames: Uint8Array) => void;
}

/** Bun's ServerWebSocket: its sends inside `cork` leave in one write. */
interface Corking {
  cork(callback: () => void): unknown;
  sendText(text: string): unknown;
}

const decoder = new TextDecoder();

/** How `ws` takes a backlog: the format its batches are written in, and how one is sent. */
export function batchSending(ws: WSContext): { format: EventFormat; write: (batch: EventBatch) => void } {
  const raw = ws.raw as (FrameWriting & Partial<Corking>) | undefined;
  const frames = raw?.[WRITE_FRAMES];
  if (frames !== undefined) return { format: SOCKET_FRAME_FORMAT, write: (batch) => frames(batch.bytes) };
  if (typeof raw?.cork === "function" && typeof raw.sendText === "function") {
    const bun = raw as Corking;
    return {
      format: SOCKET_TEXT_FORMAT,
      write: (batch) => bun.cork(() => eachText(batch, (text) => bun.sendText(text))),
    };
  }
  return { format: SOCKET_TEXT_FORMAT, write: (batch) => eachText(batch, (text) => ws.send(text)) };
}

/** Hands `send` the text of each event of `batch`, in order. */
function eachText({ bytes, bounds }: EventBatch, send: (text: string) => void): void {
  const all = decoder.decode(bytes);
  // One decoding for the batch: where every byte is a character, the events' texts are slices of it.
  const ascii = all.length === bytes.byteLength;
  for (let event = 0; event + 1 < bounds.length; event++) {
    const start = bounds[event] as number;
    const end = bounds[event + 1] as number;
    send(ascii ? all.slice(start, end) : decoder.decode(bytes.subarray(start, end)));
  }
}
