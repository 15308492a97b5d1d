import { env } from "cloudflare:workers";
import { createApp } from "../app.ts";
import { parseAppConfig } from "../config.ts";
import { MemoryStore } from "../store/memory.ts";

const app = createApp({ store: new MemoryStore(), config: parseAppConfig({ ...env }) });

export default app;
