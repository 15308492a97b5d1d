import { createApp } from "../app.ts";
import { parseAppConfig, parseListenConfig } from "../config.ts";
import { batchedLogSink } from "../request-log.ts";
import { createServerStore } from "../store/server-store.ts";
import { openNodeSqlite } from "../store/sqlite-node.ts";

const env = Deno.env.toObject();
const { port, host } = parseListenConfig(env);
const config = parseAppConfig(env);
const logSink = batchedLogSink(console);
const app = createApp({ store: createServerStore(env, openNodeSqlite), config, logSink });

const server = Deno.serve(
  {
    port,
    hostname: host,
    onListen: ({ port }) =>
      console.log(`Task list service (Deno ${Deno.version.deno}) listening on http://${host}:${port}`),
  },
  app.fetch,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () =>
    server.shutdown().then(() => {
      logSink.flush();
      Deno.exit(0);
    }),
  );
}
