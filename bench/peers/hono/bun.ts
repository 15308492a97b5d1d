// The plain Hono peer on Bun.
import app from "./app.ts";

Bun.serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 8787), hostname: process.env.HOST ?? "127.0.0.1" });
