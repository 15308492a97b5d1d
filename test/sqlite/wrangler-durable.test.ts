import { FILLED_LIST } from "../conformance/configured.ts";
import { describeDurableServer } from "./durable-server.ts";
import { describeKillMidLoad } from "./kill-mid-load.ts";

// `wrangler dev --env durable`, with local state in a new temporary directory that
// test/support/server.ts passes as --persist-to, keeps across the restart, and removes at the end.
describeDurableServer(
  "wrangler",
  "--env durable",
  () => FILLED_LIST.env,
  { fresh: true, maxListBytes: FILLED_LIST.maxListBytes },
  { environment: "durable" },
  // The whole suite runs on the Durable Object inside workerd (test/workers); a real server adds
  // HTTP, WebSockets held by the object, and restarts. Hostile handshakes and frames meet the
  // object's subscribers on test/conformance's wrangler dev server with every setting configured.
  "core",
);

// Through wrangler dev's command line, whose process group holds workerd: the kill takes both, and
// the restart starts them again on the same --persist-to directory.
describeKillMidLoad("wrangler", "--env durable", () => ({}), { environment: "durable", cli: true });
