// Node's limit on how long a request's head may take, judged only once the loop has read what came.
// Node's own check (headersTimeout) runs among the timers, before the reads that were waiting: a
// loop held up longer than the limit (a slow disk under node:sqlite, a starved machine) answered 408
// to heads that had arrived in a few milliseconds.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

/** What Node itself writes when a head takes too long. */
const TIMED_OUT = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n";

/** A connection's requests in progress, and the deadline for its next head while there are none. */
interface Waiting {
  open: number;
  deadline: NodeJS.Timeout | undefined;
}

/**
 * Closes with 408 each connection of `server` whose request head has not ended within `headMs` of
 * the connection, or within `idleMs + headMs` of its last answer (`idleMs`: how long an idle
 * keep-alive connection is kept). A request being answered, an event stream included, and an
 * upgraded connection are never cut. Set Node's own `headersTimeout` to 0 beside it; the upgrades
 * themselves are `server`'s other upgrade listener's to answer.
 */
export function limitHeadTime(server: Server, headMs: number, idleMs: number): void {
  const connections = new WeakMap<Duplex, Waiting>();
  const expectHead = (socket: Duplex, waiting: Waiting, ms: number) => {
    clearTimeout(waiting.deadline);
    const deadline = setTimeout(
      // setImmediate runs after the loop's pending reads: a head that came in time is seen first.
      () =>
        setImmediate(() => {
          if (waiting.deadline !== deadline || waiting.open > 0 || socket.destroyed) return;
          socket.write(TIMED_OUT);
          socket.destroy();
        }),
      ms,
    );
    waiting.deadline = deadline;
  };
  server.on("connection", (socket: Socket) => {
    const waiting: Waiting = { open: 0, deadline: undefined };
    connections.set(socket, waiting);
    expectHead(socket, waiting, headMs);
    socket.once("close", () => clearTimeout(waiting.deadline));
  });
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const waiting = connections.get(request.socket);
    if (waiting === undefined) return;
    waiting.open += 1;
    clearTimeout(waiting.deadline);
    response.once("close", () => {
      waiting.open -= 1;
      if (waiting.open === 0 && !request.socket.destroyed) expectHead(request.socket, waiting, idleMs + headMs);
    });
  });
  server.on("upgrade", (_request: IncomingMessage, socket: Duplex) => {
    clearTimeout(connections.get(socket)?.deadline);
    connections.delete(socket);
  });
}
