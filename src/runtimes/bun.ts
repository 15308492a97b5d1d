import { createApp } from "../app.ts";
import { parseAppConfig, parseListenConfig } from "../config.ts";
import { MemoryStore } from "../store/memory.ts";

const { port, host } = parseListenConfig(process.env);
const app = createApp({ store: new MemoryStore(), config: parseAppConfig(process.env) });

const server = Bun.serve({ port, hostname: host, fetch: app.fetch });
console.log(`Task list service (Bun ${Bun.version}) listening on http://${host}:${server.port}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => server.stop().then(() => process.exit(0)));
}
