// A child process of the feed scenario holding subscribers on raw sockets that catch up from 0 and
// leave once the last change's event has come. It runs on the load generator's CPUs (it inherits the
// harness's pinning) and parses nothing but the answer's status and the last event's marker.
import { connect, type Socket } from "node:net";
import type { FeedOrder, FeedReport, Transport } from "./protocol.ts";

const send = (report: FeedReport) => process.send?.(report);

let sockets = new Set<Socket>();
/** Subscribers that left once caught up: their sockets' closing is no failure. */
const finished = new WeakSet<Socket>();
let stopping = false;
let completed = 0;
let bytes = 0;

function request(port: number, transport: Transport): string {
  const head = `GET /tasks/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  if (transport === "sse") return `${head}Accept: text/event-stream\r\n\r\n`;
  return `${head}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: YmVuY2ggZmVlZCAxNiBieQ==\r\n\r\n`;
}

/** What ends a catch-up: the last change's event, as an SSE `id:` line or a WebSocket message's start. */
function marker(transport: Transport, last: number): Buffer {
  return Buffer.from(transport === "sse" ? `\nid: ${last}\n` : `{"id":${last},"event":`);
}

/** Opens a socket that sends the request; `onData` sees every chunk after the answer was checked. */
function open(port: number, transport: Transport, onData: (socket: Socket, chunk: Buffer) => void): Socket {
  const socket = connect(port, "127.0.0.1", () => socket.write(request(port, transport)));
  const status = transport === "sse" ? "HTTP/1.1 200" : "HTTP/1.1 101";
  let checked = false;
  sockets.add(socket);
  socket.on("data", (chunk: Buffer) => {
    if (!checked) {
      checked = true;
      if (!chunk.subarray(0, status.length).equals(Buffer.from(status))) {
        fail(`a ${transport} subscriber was answered ${chunk.subarray(0, 300).toString("latin1")}`);
        return;
      }
    }
    onData(socket, chunk);
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    sockets.delete(socket);
    if (!stopping && !finished.has(socket)) fail(`a ${transport} subscriber's connection closed early`);
  });
  return socket;
}

function fail(message: string): void {
  if (stopping) return;
  stopping = true;
  send({ type: "failed", message });
}

function catchUp(order: Extract<FeedOrder, { type: "catch-up" }>): void {
  const end = marker(order.transport, order.last);
  let started = 0;
  const next = () => {
    if (stopping || (order.count > 0 && started >= order.count)) return;
    started += 1;
    let tail = Buffer.alloc(0);
    open(order.port, order.transport, (socket, chunk) => {
      bytes += chunk.byteLength;
      // The marker may straddle two chunks: the end of the last one is searched with this one's start.
      const across = Buffer.concat([tail, chunk.subarray(0, end.byteLength - 1)]);
      if (chunk.indexOf(end) < 0 && across.indexOf(end) < 0) {
        const last = chunk.byteLength >= end.byteLength ? chunk : Buffer.concat([tail, chunk]);
        tail = Buffer.from(last.subarray(Math.max(0, last.byteLength - end.byteLength + 1)));
        return;
      }
      finished.add(socket);
      socket.destroy();
      completed += 1;
      if (order.count > 0 && completed === order.count) report();
      else next();
    });
  };
  for (let i = 0; i < order.parallel; i++) next();
}

function report(): void {
  send({ type: "caught-up", completed, bytesEach: completed === 0 ? 0 : bytes / completed });
}

process.on("message", (order: FeedOrder) => {
  if (order.type === "catch-up") catchUp(order);
  else {
    stopping = true;
    for (const socket of sockets) socket.destroy();
    sockets = new Set();
    report();
  }
});
// The harness is gone or done with this process: its sockets close with it.
process.on("disconnect", () => process.exit(0));
