import { expect, test } from "vitest";
import { FILLED_LIST } from "../conformance/configured.ts";
import { describeHostileSockets } from "../conformance/hostile-sockets.ts";
import { describeAlongside } from "../support/describe-alongside.ts";
import { startFailure, useServer } from "../support/server-fixture.ts";
import { describeDurableServer } from "./durable-server.ts";
import { describeKillMidLoad } from "./kill-mid-load.ts";

const HOSTILE_TOKEN = "hostile-sockets-read-0123456789";

// `wrangler dev --env durable`, with local state in a new temporary directory that
// test/support/server.ts passes as --persist-to, keeps across the restart, and removes at the end.
describeDurableServer(
  "wrangler",
  "--env durable",
  () => FILLED_LIST.env,
  { fresh: true, maxListBytes: FILLED_LIST.maxListBytes },
  { environment: "durable" },
  // The whole suite runs on the Durable Object inside workerd (test/workers); a real server adds
  // HTTP, WebSockets held by the object, and restarts.
  "core",
);

// Through wrangler dev's command line, whose process group holds workerd: the kill takes both, and
// the restart starts them again on the same --persist-to directory.
describeKillMidLoad("wrangler", "--env durable", () => ({}), { environment: "durable", cli: true });

test("TASK_STORE=durable outside the durable environment stops the Worker as it loads, naming the missing binding", async () => {
  // test/conformance shows wrangler dev's command line exits on a Worker that throws while it loads.
  const failure = await startFailure("wrangler", { TASK_STORE: "durable" }, { cli: false });
  expect(failure).toContain("the Worker threw while it loaded");
  expect(failure).toContain("TASK_STORE is durable but the TASK_LIST Durable Object binding is missing");
});

// The Durable Object counts its WebSocket subscribers itself: the same hostile handshakes and frames.
describeAlongside("wrangler server, --env durable, MAX_SUBSCRIBERS=3", () => {
  const server = useServer(
    "wrangler",
    { MAX_SUBSCRIBERS: "3", READ_TOKENS: HOSTILE_TOKEN },
    { environment: "durable" },
  );
  describeHostileSockets("wrangler", server, { basePath: "", token: HOSTILE_TOKEN, maxSubscribers: 3 });
});
