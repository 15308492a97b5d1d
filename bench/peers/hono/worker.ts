// The plain Hono peer as a Worker, bundled by `wrangler deploy --dry-run` like the service's Worker.
import app from "./app.ts";

export default app;
