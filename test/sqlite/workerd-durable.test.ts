import { FILLED_LIST } from "../conformance/configured.ts";
import { describeHostileSockets } from "../conformance/hostile-sockets.ts";
import { describeDurableServer } from "./durable-server.ts";
import { describeHibernatedGone } from "./hibernated-gone.ts";
import { describeKillMidLoad } from "./kill-mid-load.ts";
import { describeListsKilled } from "./lists-killed.ts";

/** Few enough that the hostile handshakes below can try each kind that many times and fill every slot. */
const MAX_SUBSCRIBERS = 10;

// The Worker of `--env durable` on `workerd serve`, its objects' files in a new temporary directory
// that test/support/server.ts keeps across the restart and removes at the end.
describeDurableServer(
  "workerd",
  "--env durable",
  () => ({ ...FILLED_LIST.env, MAX_SUBSCRIBERS: String(MAX_SUBSCRIBERS) }),
  { fresh: true, maxListBytes: FILLED_LIST.maxListBytes },
  {
    start: { environment: "durable" },
    // The whole suite runs on the Durable Object inside workerd (test/workers); a real server adds
    // HTTP, WebSockets held by the object, and restarts.
    part: "core",
    // The object holds its WebSocket subscribers itself: hostile handshakes and frames meet them here
    // (test/conformance's workerd server, on the memory store, meets the Worker's own, and a token),
    // and a list deleted while its object is out of memory, its sockets kept by workerd.
    alsoOnServer: (server) => {
      describeHostileSockets("workerd", server, { basePath: "", token: undefined, maxSubscribers: MAX_SUBSCRIBERS });
      describeHibernatedGone(server);
    },
  },
);

// Through wrangler dev's command line, whose process group holds workerd: the kill takes both, and
// the restart starts them again on the same --persist-to directory.
describeKillMidLoad("workerd", "--env durable", () => ({}), { environment: "durable", cli: true });

// The directory's object and each list's object: killed amid creations and deletions, they agree
// once back (the directory carries each decision to the list's object again after a failure).
describeListsKilled("workerd", "--env durable", () => ({}), { environment: "durable", cli: true });
