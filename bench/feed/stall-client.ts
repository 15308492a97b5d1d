// A Bun process of the feed scenario holding subscribers that stop reading: each connects with the
// segment size of an Ethernet path and a small receive buffer (socket options Node does not offer,
// set here through libc), reads the answer's first bytes, then nothing more until the process ends.
// On loopback, whose segments are 64 KiB, the kernel would otherwise take 2 to 4 MiB of a connection
// that is not read before its server sees it full; so it takes about 220 KiB, as over a network.
//
// Usage: bun stall-client.ts PORT sse|ws COUNT. Prints one JSON line, {"ports":[...]}, the local
// ports of the subscribers once every one has had its first bytes, and exits when its stdin closes.
import { dlopen, FFIType, ptr } from "bun:ffi";

const AF_INET = 2;
const SOCK_STREAM = 1;
const SOL_SOCKET = 1;
const SO_RCVBUF = 8;
const IPPROTO_TCP = 6;
const TCP_MAXSEG = 2;
/** Ethernet's MTU less the IP and TCP headers. */
const SEGMENT_BYTES = 1460;
const RECEIVE_BUFFER_BYTES = 16 * 1024;

const { i32, ptr: pointer, u64 } = FFIType;
const libc = dlopen("libc.so.6", {
  socket: { args: [i32, i32, i32], returns: i32 },
  setsockopt: { args: [i32, i32, i32, pointer, i32], returns: i32 },
  connect: { args: [i32, pointer, i32], returns: i32 },
  getsockname: { args: [i32, pointer, pointer], returns: i32 },
  write: { args: [i32, pointer, u64], returns: i32 },
  read: { args: [i32, pointer, u64], returns: i32 },
}).symbols;

const [port = 0, transport = "sse", count = 0] = [Number(Bun.argv[2]), Bun.argv[3], Number(Bun.argv[4])];
const head = `GET /tasks/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
const request = new TextEncoder().encode(
  transport === "sse"
    ? `${head}Accept: text/event-stream\r\n\r\n`
    : `${head}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: YmVuY2ggZmVlZCAxNiBieQ==\r\n\r\n`,
);
const status = transport === "sse" ? "HTTP/1.1 200" : "HTTP/1.1 101";

/** struct sockaddr_in for 127.0.0.1:`port`. */
const address = new Uint8Array(16);
new DataView(address.buffer).setUint16(0, AF_INET, true);
new DataView(address.buffer).setUint16(2, port, false);
address.set([127, 0, 0, 1], 4);

function option(fd: number, level: number, name: number, value: number): void {
  const int = new Int32Array([value]);
  if (libc.setsockopt(fd, level, name, ptr(int), 4) !== 0) throw new Error(`setsockopt ${level}/${name} failed`);
}

/** Opens one subscriber and returns its local port once the answer's first bytes have come. */
function stall(): number {
  const fd = libc.socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw new Error("socket() failed: raise ulimit -n");
  // Both before connecting: the segment size goes out in the handshake, the buffer sets the window.
  option(fd, IPPROTO_TCP, TCP_MAXSEG, SEGMENT_BYTES);
  option(fd, SOL_SOCKET, SO_RCVBUF, RECEIVE_BUFFER_BYTES);
  if (libc.connect(fd, ptr(address), address.byteLength) !== 0) throw new Error(`connect() to port ${port} failed`);
  if (libc.write(fd, ptr(request), request.byteLength) !== request.byteLength) throw new Error("write() failed");
  const first = new Uint8Array(status.length);
  for (let got = 0; got < first.byteLength; ) {
    const n = libc.read(fd, ptr(first.subarray(got)), first.byteLength - got);
    if (n <= 0) throw new Error(`A stalled ${transport} subscriber's connection closed before its answer`);
    got += n;
  }
  const answer = new TextDecoder().decode(first);
  if (answer !== status) throw new Error(`A stalled ${transport} subscriber was answered ${answer}`);
  const local = new Uint8Array(16);
  const size = new Int32Array([16]);
  libc.getsockname(fd, ptr(local), ptr(size));
  return new DataView(local.buffer).getUint16(2, false);
}

const ports = Array.from({ length: count }, stall);
console.log(JSON.stringify({ ports }));
// Holding the sockets, unread, until the harness closes stdin; the process's end closes them.
for await (const _ of Bun.stdin.stream());
