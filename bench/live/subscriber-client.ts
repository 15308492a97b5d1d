// A child process of the bench holding SSE subscribers on raw sockets: it opens them, notes when
// each task's event reaches each of them, and turns those times into latencies at the end.
// It runs on the load generator's CPUs (it inherits the harness's pinning) and parses as little
// as it can, so that thousands of streams cost it less than they cost the server.
import { connect, type Socket } from "node:net";
import { type ClientOrder, type ClientReport, now } from "./protocol.ts";

/** Streams being opened at once: more would fill the server's listen backlog. */
const OPENING_AT_ONCE = 64;
/** An SSE field `id: N` on a line of its own. The task's JSON has `"id":N`, which this does not match. */
const ID_FIELD = /(?:^|\n)id: (\d+)\n/g;

const send = (report: ClientReport) => process.send?.(report);

let streams: Socket[] = [];
/** When each stream got each measured task's event, by task index then stream. */
let arrivals: Float64Array[] = [];
let received: Int32Array = new Int32Array(0);
let reported: Uint8Array = new Uint8Array(0);
let open = 0;
let ended = 0;
let unexpected = 0;
let closing = false;

function openAll(order: Extract<ClientOrder, { type: "open" }>): void {
  arrivals = Array.from({ length: order.posts }, () => new Float64Array(order.count).fill(Number.NaN));
  received = new Int32Array(order.posts);
  reported = new Uint8Array(order.posts);
  const request = `GET ${order.path} HTTP/1.1\r\nHost: 127.0.0.1:${order.port}\r\nAccept: text/event-stream\r\n\r\n`;
  let started = 0;
  let failed = false;
  const fail = (message: string) => {
    if (failed) return;
    failed = true;
    send({ type: "failed", message });
  };
  const next = () => {
    if (failed || started >= order.count) return;
    const index = started++;
    const socket = connect(order.port, "127.0.0.1", () => socket.write(request));
    socket.setNoDelay(true);
    streams.push(socket);
    let opened = false;
    let carry = "";
    socket.on("data", (chunk: Buffer) => {
      const at = now();
      let text = carry + chunk.toString("latin1");
      if (!opened) {
        const head = text.indexOf("\r\n\r\n");
        if (head >= 0 && !text.startsWith("HTTP/1.1 200")) {
          fail(`a subscriber was answered ${text.slice(0, text.indexOf("\r\n"))}: ${text.slice(head + 4, head + 300)}`);
          return;
        }
        // Open once the head and the stream's first line have come: the server holds it by then.
        if (head < 0 || text.indexOf("\n\n", head + 4) < 0) {
          carry = text;
          return;
        }
        opened = true;
        open += 1;
        text = text.slice(head + 4);
        if (open === order.count) send({ type: "opened" });
        else next();
      }
      const end = text.lastIndexOf("\n\n");
      if (end < 0) {
        carry = text;
        return;
      }
      for (const match of text.slice(0, end + 2).matchAll(ID_FIELD))
        record(Number(match[1]) - order.firstId, index, at);
      carry = text.slice(end + 2);
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      if (closing) return;
      if (!opened) {
        fail(
          `a subscriber's connection closed before its stream opened (${carry.slice(0, 200) || "nothing received"})`,
        );
        return;
      }
      ended += 1;
      for (let task = 0; task < received.length; task++) checkDelivered(task);
    });
  };
  for (let i = 0; i < Math.min(OPENING_AT_ONCE, order.count); i++) next();
}

function record(task: number, stream: number, at: number): void {
  const times = arrivals[task];
  if (times === undefined || !Number.isNaN(times[stream])) {
    unexpected += 1;
    return;
  }
  times[stream] = at;
  received[task] = (received[task] ?? 0) + 1;
  checkDelivered(task);
}

/** Tells the harness once every stream still open has the task's event, so that it sends the next POST. */
function checkDelivered(task: number): void {
  if (reported[task] === 1 || (received[task] ?? 0) < open - ended) return;
  reported[task] = 1;
  send({ type: "delivered", index: task });
}

function latencies(times: readonly number[]): void {
  const out: number[] = [];
  let missed = 0;
  arrivals.forEach((byStream, task) => {
    const answered = times[task] ?? Number.NaN;
    // A change the harness did not time this once: measured by another call.
    if (Number.isNaN(answered)) return;
    for (const at of byStream) {
      if (Number.isNaN(at)) missed += 1;
      else out.push(at - answered);
    }
  });
  send({ type: "latencies", latencies: Float64Array.from(out), missed, unexpected, ended });
}

function closeAll(): void {
  closing = true;
  let left = streams.length;
  const done = () => {
    left -= 1;
    if (left === 0) process.disconnect?.();
  };
  for (const socket of streams) {
    if (socket.closed) done();
    else {
      socket.once("close", done);
      socket.destroy();
    }
  }
  streams = [];
  if (left === 0) process.disconnect?.();
}

process.on("message", (order: ClientOrder) => {
  if (order.type === "open") openAll(order);
  else if (order.type === "answers") latencies(order.times);
  else closeAll();
});
// The harness is gone (or done with this process): nothing to hold the streams for.
process.on("disconnect", () => process.exit(0));
