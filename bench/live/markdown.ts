// The live scenario's section of the results: delivery latency per server and crowd, then memory.
import { table } from "../lib/table.ts";
import { type LiveRow, peerOf } from "./summary.ts";
import { PEER_P99_RATIO } from "./targets.ts";

/** How the tables name each live server. */
const SERVER_LABELS: Record<LiveRow["server"], string> = {
  app: "service",
  "hono-live": "plain Hono (streamSSE)",
  "app-postgres": "service, 2 processes on PostgreSQL",
};

const int = (x: number) => Math.round(x).toLocaleString("en");
const dec = (x: number | undefined, digits: number) => (x === undefined ? "–" : x.toFixed(digits));
const mib = (kib: number | undefined) => (kib === undefined ? "–" : (kib / 1024).toFixed(0));

/** The live scenario's tables, or nothing when the run had no live trial. */
export function liveSection(rows: readonly LiveRow[]): string {
  if (rows.length === 0) return "";
  const latency = table(
    [
      "Runtime",
      "Server",
      "Subscribers",
      "POSTs",
      "p50 ms",
      "p99 ms",
      "max ms",
      "p99 × plain Hono",
      "PATCH p50 ms",
      "PATCH p99 ms",
      "POST ms",
      "server CPU µs/event",
      "client CPU µs/event",
      "opening s",
      "missed",
    ],
    rows.map((r) => {
      const peer = peerOf(rows, r);
      return [
        r.runtime,
        SERVER_LABELS[r.server],
        int(r.subscribers),
        `${r.posts} × ${r.trials}`,
        dec(r.p50Ms, 1),
        dec(r.p99Ms, 1),
        dec(r.maxMs, 1),
        peer === undefined ? "–" : dec(r.p99Ms / peer.p99Ms, 2),
        dec(r.editP50Ms, 1),
        dec(r.editP99Ms, 1),
        dec(r.postMs, 1),
        dec(r.serverMicrosPerEvent, 1),
        dec(r.clientMicrosPerEvent, 1),
        dec(r.openSeconds, 1),
        int(r.missed + r.unexpected + r.ended),
      ];
    }),
    2,
  );
  const measuredMemory = rows.filter((r) => r.kibPerSubscriber !== undefined);
  const memory = table(
    [
      "Runtime",
      "Server",
      "Subscribers",
      "RSS before MiB",
      "idle streams open MiB",
      "KiB/subscriber",
      "after the POSTs MiB",
      "after they left MiB",
    ],
    measuredMemory.map((r) => [
      r.runtime,
      SERVER_LABELS[r.server],
      int(r.subscribers),
      mib(r.rssBeforeKib),
      mib(r.rssOpenKib),
      dec(r.kibPerSubscriber, 1),
      mib(r.rssPostedKib),
      mib(r.rssLeftKib),
    ]),
    2,
  );
  return `
## Live changes

${latency}

Each trial starts a fresh server, opens the subscribers on \`/tasks/events\` (raw sockets held by client processes
on the load generator's CPUs), lets them settle, then POSTs tasks one at a time: the next once every subscriber has
the last one's event, 20 ms later. A latency runs from the POST's answer reaching the client to the task's event
reaching a subscriber, on one clock; one per subscriber and POST. On the service, as many PATCHes follow, one per task the
POSTs created, spaced the same way: PATCH p50 and p99 are the same from a PATCH's answer to its \`update\` event. p50 and p99 are medians of the trials' own, max the
largest of all; a latency below 0 is an event that came before its POST's answer. With thousands of subscribers the
p99 is how long the last of them waited on the slower POSTs: the time the server takes to write to all of them.
POST ms: the median time from a POST's request to its answer, which waits for whatever the server does before it
answers (a server may write the events first). On PostgreSQL the subscribers follow one process and the POSTs go to another: the event crosses the database's
LISTEN/NOTIFY. Server CPU per event: the subscribers' server's CPU time over the POSTs over the events received; client
CPU per event, the same for the subscriber clients, which shows they are not what the latency waits for. p99 × plain
Hono: the service's fan-out is meant to match the peer's, at most ${PEER_P99_RATIO} ×. Missed: events not received,
received twice, and streams the server ended.

${memory}

RSS per subscriber: the server's resident memory once the idle streams have settled (2 s) minus before they opened,
over their number. After the POSTs, and 3 s after the subscribers left: a runtime's collector keeps what it freed
for its heap for a while, so memory that does not come down there is not necessarily held by the service.
`;
}
