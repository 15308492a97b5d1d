import { createApp } from "../app.ts";
import { parseAppConfig, parseListenConfig } from "../config.ts";
import { createServerStore } from "../store/server-store.ts";
import { openNodeSqlite } from "../store/sqlite-node.ts";

const env = Deno.env.toObject();
const { port, host } = parseListenConfig(env);
const config = parseAppConfig(env);
const app = createApp({ store: createServerStore(env, openNodeSqlite), config });

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
  Deno.addSignalListener(signal, () => server.shutdown().then(() => Deno.exit(0)));
}
