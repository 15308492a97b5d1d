import { FILLED_LIST } from "../conformance/configured.ts";
import { describeDurableServer } from "./durable-server.ts";
import { describeKillMidLoad } from "./kill-mid-load.ts";

// The Worker of `--env durable` on `workerd serve`, its objects' files in a new temporary directory
// that test/support/server.ts keeps across the restart and removes at the end.
describeDurableServer(
  "workerd",
  "--env durable",
  () => FILLED_LIST.env,
  { fresh: true, maxListBytes: FILLED_LIST.maxListBytes },
  { environment: "durable" },
  // The whole suite runs on the Durable Object inside workerd (test/workers); a real server adds
  // HTTP, WebSockets held by the object, and restarts. Hostile handshakes and frames meet the
  // object's subscribers on test/conformance's workerd server with every setting configured.
  "core",
);

// Through wrangler dev's command line, whose process group holds workerd: the kill takes both, and
// the restart starts them again on the same --persist-to directory.
describeKillMidLoad("workerd", "--env durable", () => ({}), { environment: "durable", cli: true });
